package cli

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"einvoice/store"
)

var emailStates = []string{store.EmailQueued, store.EmailSent, store.EmailFailed, store.EmailReturned}

func emailsList(fs *flag.FlagSet) func(*adminEnv) error {
	nifFlag := fs.String("nif", "", "only the e-mails of this issuer")
	country := fs.String("country", "PT", "country of --nif")
	state := fs.String("state", "", "only e-mails in this state: "+strings.Join(emailStates, ", "))
	limit := fs.Int("limit", 50, "at most this many, newest first")
	return func(a *adminEnv) error {
		f := store.EmailFilter{State: *state, Limit: *limit}
		if f.State != "" && !slices.Contains(emailStates, f.State) {
			return usagef("--state must be one of %s", strings.Join(emailStates, ", "))
		}
		if f.Limit < 1 || f.Limit > 10000 {
			return usagef("--limit must be between 1 and 10000")
		}
		if *nifFlag != "" {
			e, err := a.entityByTaxID("nif", *nifFlag, *country)
			if err != nil {
				return err
			}
			f.EntityID = e.ID
		}
		emails, err := a.st.Emails(a.ctx, f)
		if err != nil {
			return err
		}
		return a.print(emails, func(w io.Writer) {
			fmt.Fprintln(w, "ID\tDOCUMENT\tADDRESS\tSTATE\tTRIES\tSENT\tOPENED\tNEXT TRY\tERROR")
			for _, e := range emails {
				fmt.Fprintf(w, "%d\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", e.ID, e.DocumentID, e.Address, e.State, e.Attempts,
					dash(e.SentAt), dash(e.OpenedAt), dash(e.NextAttemptAt), dash(e.LastError))
			}
		})
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func emailsOutbox(fs *flag.FlagSet) func(*adminEnv) error {
	limit := fs.Int("limit", 50, "at most this many, newest first")
	return func(a *adminEnv) error {
		if *limit < 1 || *limit > 10000 {
			return usagef("--limit must be between 1 and 10000")
		}
		dir, out, err := a.wf.OutboxMessages(*limit)
		if err != nil {
			return err
		}
		return a.print(out, func(w io.Writer) {
			fmt.Fprintf(w, "%d message(s) in %s\n", len(out), dir)
			fmt.Fprintln(w, "DATE\tTO\tSUBJECT\tSIZE\tFILE")
			for _, m := range out {
				fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\n", m.Date, m.To, m.Subject, m.Size, filepath.Join(dir, m.File))
			}
		})
	}
}
