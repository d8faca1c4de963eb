package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"einvoice/server"
	"einvoice/server/edi/as2"
	"einvoice/store"
)

// The AS2 commands join the admin table here, to keep them beside their code.
func init() {
	adminCommands = append(adminCommands,
		adminCommand{"as2 identity", "show", "this installation's AS2 id and certificate (made on first use)", as2IdentityShow},
		adminCommand{"as2 identity", "import", "--file F.p12 [--password-file F | --password-env VAR] [--as2-id ID]  (else asked)", as2IdentityImport},
		adminCommand{"as2 partner", "create", "--name N --as2-id ID --url URL --cert F.pem [--sign " + algorithms(as2.SignAlgorithms) +
			"] [--cipher " + algorithms(as2.CipherAlgorithms) + "] [--compress] [--mdn " + algorithms(as2.MDNModes) + "]", as2PartnerCreate},
		adminCommand{"as2 partner", "list", "", as2PartnerList},
		adminCommand{"as2 partner", "update", "--name N [--new-name N] [--as2-id ID] [--url URL] [--cert F.pem] [--sign S] [--cipher C] [--compress on|off] [--mdn M]", as2PartnerUpdate},
		adminCommand{"as2 partner", "delete", "--name N  (and its message ledger)", as2PartnerDelete},
	)
}

func algorithms(names []string) string { return strings.Join(names, "|") }

// maxCertificateFile bounds a partner's certificate file.
const maxCertificateFile = 64 << 10

func as2IdentityShow(*flag.FlagSet) func(*adminEnv) error {
	return func(a *adminEnv) error {
		id, err := a.wf.AS2Identity(a.ctx)
		if err != nil {
			return err
		}
		return a.printAS2Identity(id)
	}
}

func as2IdentityImport(fs *flag.FlagSet) func(*adminEnv) error {
	file := fs.String("file", "", "PKCS#12 file (.p12/.pfx) with an RSA key and its certificate")
	readPassword := secretFlags(fs, "password", "the PKCS#12 password", "PKCS#12 password")
	as2ID := fs.String("as2-id", "", "new AS2 id (else the current one)")
	return func(a *adminEnv) error {
		if *file == "" {
			return usagef("--file is required")
		}
		data, err := readBounded(*file, server.MaxSealFile)
		if err != nil {
			return err
		}
		password, err := readPassword()
		if err != nil {
			return err
		}
		id, err := a.wf.ImportAS2Identity(a.ctx, data, password, strings.TrimSpace(*as2ID))
		if err != nil {
			return err
		}
		return a.printAS2Identity(id)
	}
}

func (a *adminEnv) printAS2Identity(id server.AS2IdentityView) error {
	return a.print(id, func(w io.Writer) {
		fmt.Fprintf(w, "AS2 id\t%s\nsubject\t%s\nvalid\t%s to %s\nSHA-256 fingerprint\t%s\n", id.AS2ID, id.Subject, id.NotBefore, id.NotAfter, id.Fingerprint)
		fmt.Fprint(w, id.Certificate)
	})
}

func as2PartnerCreate(fs *flag.FlagSet) func(*adminEnv) error {
	name := fs.String("name", "", "the partner's name here (connections name it)")
	as2ID := fs.String("as2-id", "", "the partner's AS2 id")
	url := fs.String("url", "", "where its AS2 messages are POSTed")
	cert := fs.String("cert", "", "PEM file of its certificate")
	sign := fs.String("sign", as2.SHA256, "signature digest: "+algorithms(as2.SignAlgorithms))
	cipher := fs.String("cipher", as2.AES256, "content cipher: "+algorithms(as2.CipherAlgorithms))
	compress := fs.Bool("compress", false, "compress messages (RFC 5402)")
	mdn := fs.String("mdn", as2.MDNAsync, "MDN mode: "+algorithms(as2.MDNModes))
	return func(a *adminEnv) error {
		if *cert == "" {
			return usagef("--cert is required")
		}
		pem, err := readBounded(*cert, maxCertificateFile)
		if err != nil {
			return err
		}
		p, err := a.wf.CreateAS2Partner(a.ctx, server.AS2PartnerInput{Name: *name, AS2ID: *as2ID, URL: *url, Certificate: string(pem),
			Sign: *sign, Cipher: *cipher, Compress: *compress, MDN: *mdn})
		if err != nil {
			return reword(err, server.CodeExists, "a partner named %q or with the AS2 id %q exists already", *name, *as2ID)
		}
		return a.printAS2Partners([]store.AS2Partner{p})
	}
}

func as2PartnerList(*flag.FlagSet) func(*adminEnv) error {
	return func(a *adminEnv) error {
		ps, err := a.wf.AS2Partners(a.ctx)
		if err != nil {
			return err
		}
		return a.printAS2Partners(ps)
	}
}

func as2PartnerUpdate(fs *flag.FlagSet) func(*adminEnv) error {
	name := fs.String("name", "", "the partner to change")
	var newName, as2ID, url, sign, cipher, mdn optionalString
	var compress onOffFlag
	fs.Var(&newName, "new-name", "its new name")
	fs.Var(&as2ID, "as2-id", "its AS2 id")
	fs.Var(&url, "url", "where its AS2 messages are POSTed")
	cert := fs.String("cert", "", "PEM file of its (renewed) certificate")
	fs.Var(&sign, "sign", "signature digest: "+algorithms(as2.SignAlgorithms))
	fs.Var(&cipher, "cipher", "content cipher: "+algorithms(as2.CipherAlgorithms))
	fs.Var(&compress, "compress", "on|off: compress messages")
	fs.Var(&mdn, "mdn", "MDN mode: "+algorithms(as2.MDNModes))
	return func(a *adminEnv) error {
		if *name == "" {
			return usagef("--name is required")
		}
		change := server.AS2PartnerChange{Name: newName.v, AS2ID: as2ID.v, URL: url.v, Sign: sign.v, Cipher: cipher.v, MDN: mdn.v, Compress: compress.v}
		if *cert != "" {
			pem, err := readBounded(*cert, maxCertificateFile)
			if err != nil {
				return err
			}
			text := string(pem)
			change.Certificate = &text
		}
		p, err := a.wf.UpdateAS2Partner(a.ctx, *name, change)
		if err != nil {
			return reword(reword(err, server.CodeNotFound, "no AS2 partner is named %q", *name),
				server.CodeExists, "another partner has that name or AS2 id")
		}
		return a.printAS2Partners([]store.AS2Partner{p})
	}
}

func as2PartnerDelete(fs *flag.FlagSet) func(*adminEnv) error {
	name := fs.String("name", "", "the partner to delete")
	return func(a *adminEnv) error {
		if *name == "" {
			return usagef("--name is required")
		}
		if err := a.wf.DeleteAS2Partner(a.ctx, *name); err != nil {
			return reword(err, server.CodeNotFound, "no AS2 partner is named %q", *name)
		}
		return a.print(map[string]any{"deleted": true, "name": *name}, func(w io.Writer) {
			fmt.Fprintf(w, "AS2 partner %s deleted\n", *name)
		})
	}
}

func (a *adminEnv) printAS2Partners(ps []store.AS2Partner) error {
	return a.print(ps, func(w io.Writer) {
		fmt.Fprintln(w, "NAME\tAS2 ID\tURL\tSIGN\tCIPHER\tCOMPRESS\tMDN\tUPDATED")
		for _, p := range ps {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, p.AS2ID, p.URL, p.Sign, p.Cipher, onOff(p.Compress), p.MDN, p.UpdatedAt)
		}
	})
}
