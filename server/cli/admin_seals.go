package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"einvoice/server"
	"einvoice/store"
)

// sealWarningDays is how long before expiry `seal list` warns.
const sealWarningDays = 30

func sealImport(fs *flag.FlagSet) func(*adminEnv) error {
	entity := entityFlags(fs)
	file := fs.String("file", "", "PKCS#12 file (.p12/.pfx) with the key, its certificate and the chain")
	readPassword := secretFlags(fs, "password", "the PKCS#12 password", "PKCS#12 password")
	return func(a *adminEnv) error {
		if *file == "" {
			return usagef("--file is required")
		}
		e, err := entity(a)
		if err != nil {
			return err
		}
		data, err := readBounded(*file, server.MaxSealFile)
		if err != nil {
			return err
		}
		password, err := readPassword()
		if err != nil {
			return err
		}
		kept, err := a.wf.ImportSeal(a.ctx, e.ID, data, password)
		if err != nil {
			return err
		}
		return a.printSeals([]store.Seal{kept}, map[int64]store.Entity{e.ID: e})
	}
}

// readBounded reads a file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return data, nil
}

// sealPassword takes the PKCS#12 password from a file, an environment variable, or the terminal (or the
// first line of standard input when it is not a terminal).
func sealPassword(file, env string) (string, error) { return readSecret("PKCS#12 password", file, env) }

// secretFlags declares --NAME-file and --NAME-env for a secret described as what, and returns what
// reads it (readSecret, asking for prompt at the terminal when neither is given).
func secretFlags(fs *flag.FlagSet, name, what, prompt string) func() (string, error) {
	file := fs.String(name+"-file", "", "file whose first line is "+what)
	env := fs.String(name+"-env", "", "environment variable holding "+what)
	return func() (string, error) { return readSecret(prompt, *file, *env) }
}

// readSecret takes a secret from a file (its first line), an environment variable, or the terminal,
// asked without echo under prompt (or the first line of standard input when it is not a terminal).
func readSecret(prompt, file, env string) (string, error) {
	switch {
	case file != "" && env != "":
		return "", usagef("give --password-file or --password-env, not both")
	case file != "":
		data, err := readBounded(file, 4096)
		if err != nil {
			return "", err
		}
		line, _, _ := strings.Cut(string(data), "\n")
		return strings.TrimSuffix(line, "\r"), nil
	case env != "":
		v, ok := os.LookupEnv(env)
		if !ok {
			return "", fmt.Errorf("the environment variable %s is not set", env)
		}
		return v, nil
	}
	if fd := int(os.Stdin.Fd()); term.IsTerminal(fd) {
		fmt.Fprint(os.Stderr, prompt+": ")
		p, err := term.ReadPassword(fd)
		fmt.Fprintln(os.Stderr)
		return string(p), err
	}
	line, err := bufio.NewReader(io.LimitReader(os.Stdin, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func sealList(fs *flag.FlagSet) func(*adminEnv) error {
	nifFlag := fs.String("nif", "", "only this entity's seal")
	country := fs.String("country", "PT", "country of --nif")
	return func(a *adminEnv) error {
		seals, err := a.st.Seals(a.ctx)
		if err != nil {
			return err
		}
		entities := map[int64]store.Entity{}
		es, err := a.st.Entities(a.ctx)
		if err != nil {
			return err
		}
		for _, e := range es {
			entities[e.ID] = e
		}
		if *nifFlag != "" {
			e, err := a.entityByTaxID("nif", *nifFlag, *country)
			if err != nil {
				return err
			}
			seals = filterSeals(seals, e.ID)
		}
		return a.printSeals(seals, entities)
	}
}

func filterSeals(seals []store.Seal, entityID int64) []store.Seal {
	out := []store.Seal{}
	for _, s := range seals {
		if s.EntityID == entityID {
			out = append(out, s)
		}
	}
	return out
}

// sealView is a seal as `seal list` shows it.
type sealView struct {
	store.Seal
	TaxID  string `json:"tax_id"`
	Status string `json:"status"` // valid, expiring, expired, not_yet_valid
	Note   string `json:"note"`
}

// sealStatus tells whether a seal can sign now and warns when its end is near.
func sealStatus(s store.Seal, now time.Time) (status, note string) {
	from, _ := time.Parse(time.RFC3339, s.NotBefore)
	until, _ := time.Parse(time.RFC3339, s.NotAfter)
	switch days := int(until.Sub(now).Hours() / 24); {
	case now.Before(from):
		return "not_yet_valid", "valid from " + from.Format(time.DateOnly)
	case now.After(until):
		return "expired", "expired on " + until.Format(time.DateOnly) + ": documents are refused until a new seal is imported"
	case days < sealWarningDays:
		return "expiring", fmt.Sprintf("WARNING: expires in %d days; import the renewed seal", days)
	}
	return "valid", ""
}

func (a *adminEnv) printSeals(seals []store.Seal, entities map[int64]store.Entity) error {
	now := time.Now()
	views := make([]sealView, len(seals))
	for i, s := range seals {
		e := entities[s.EntityID]
		views[i] = sealView{Seal: s, TaxID: e.Country + e.NIF}
		views[i].Status, views[i].Note = sealStatus(s, now)
	}
	return a.print(views, func(w io.Writer) {
		fmt.Fprintln(w, "TAX ID\tSUBJECT\tISSUER\tVALID FROM\tVALID UNTIL\tSTATUS")
		for _, v := range views {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s %s\n", v.TaxID, v.Subject, v.Issuer, v.NotBefore, v.NotAfter, v.Status, v.Note)
		}
	})
}

func sealDelete(fs *flag.FlagSet) func(*adminEnv) error {
	entity := entityFlags(fs)
	return func(a *adminEnv) error {
		e, err := entity(a)
		if err != nil {
			return err
		}
		taxID := e.Country + e.NIF
		if err := a.wf.DeleteSeal(a.ctx, e.ID); err != nil {
			return reword(err, server.CodeNotFound, "the entity %s has no seal", taxID)
		}
		return a.print(map[string]any{"deleted": true, "tax_id": taxID}, func(w io.Writer) {
			fmt.Fprintf(w, "seal of %s deleted: the service no longer signs its documents\n", taxID)
		})
	}
}
