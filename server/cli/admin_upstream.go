package cli

import (
	"flag"
	"fmt"
	"io"

	"einvoice/server"
	"einvoice/store"
)

// upstreamCreate records an upstream broker; its secret and the entity's public key there are read
// from files, the environment or the terminal, never from the command line.
func upstreamCreate(fs *flag.FlagSet) func(*adminEnv) error {
	name := fs.String("name", "", "name that connections use (--upstream)")
	base := fs.String("url", "", "base URL of its API, such as https://broker.example/api/v1/pt")
	clientID := fs.String("client-id", "", "the platform OAuth client id there")
	readClientSecret := secretFlags(fs, "secret", "the client secret", "client secret")
	readPublicKey := secretFlags(fs, "public-key", "the entity's public key there", "public key")
	return func(a *adminEnv) error {
		secret, err := readClientSecret()
		if err != nil {
			return err
		}
		key, err := readPublicKey()
		if err != nil {
			return err
		}
		u, err := a.wf.CreateUpstream(a.ctx, store.Upstream{Name: *name, BaseURL: *base, ClientID: *clientID, Secret: secret, PublicKey: key})
		if err != nil {
			return reword(err, server.CodeExists, "an upstream named %s exists already", *name)
		}
		return a.print(u, func(w io.Writer) { printUpstreams(w, []store.Upstream{u}) })
	}
}

func upstreamList(*flag.FlagSet) func(*adminEnv) error {
	return func(a *adminEnv) error {
		us, err := a.st.Upstreams(a.ctx)
		if err != nil {
			return err
		}
		return a.print(us, func(w io.Writer) { printUpstreams(w, us) })
	}
}

func upstreamDelete(fs *flag.FlagSet) func(*adminEnv) error {
	name := fs.String("name", "", "the upstream's name")
	return func(a *adminEnv) error {
		if err := a.wf.DeleteUpstream(a.ctx, *name); err != nil {
			return reword(err, server.CodeNotFound, "no upstream named %s", *name)
		}
		return a.print(map[string]any{"deleted": true, "name": *name}, func(w io.Writer) {
			fmt.Fprintf(w, "upstream %s deleted\n", *name)
		})
	}
}

func printUpstreams(w io.Writer, us []store.Upstream) {
	fmt.Fprintln(w, "NAME\tURL\tCLIENT_ID\tCREATED")
	for _, u := range us {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", u.Name, u.BaseURL, u.ClientID, u.CreatedAt)
	}
}
