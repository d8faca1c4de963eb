package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"einvoice/server"
	"einvoice/store"
)

// connectionCreate connects two entities here, or an entity here with an external tax ID reached
// through an AS2 partner (--partner) or an upstream broker (--upstream).
func connectionCreate(fs *flag.FlagSet) func(*adminEnv) error {
	from := fs.String("from", "", "tax ID of the requesting party")
	to := fs.String("to", "", "tax ID of the receiving party")
	partner := fs.String("partner", "", "the AS2 partner that reaches the external party")
	upstream := fs.String("upstream", "", "the upstream broker that reaches the external party")
	name := fs.String("name", "", "name of the external party")
	state := fs.String("state", store.ConnAnalyzing, "initial state: analyzing, approved, declined or pending")
	observation := fs.String("observation", "", "note")
	return func(a *adminEnv) error {
		n := store.NewConnection{State: *state, Observation: *observation, Person: "support", Partner: *partner, Upstream: *upstream}
		sides := []struct {
			flag, raw string
			id        *int64
			external  *store.PartyKey
		}{{"from", *from, &n.FromEntityID, &n.FromExternal}, {"to", *to, &n.ToEntityID, &n.ToExternal}}
		for _, side := range sides {
			country, nif, err := parseTaxID(side.flag, side.raw, "PT")
			if err != nil {
				return err
			}
			e, err := a.st.EntityByNIF(a.ctx, country, nif)
			switch {
			case err == nil:
				*side.id = e.ID
			case !errors.Is(err, store.ErrNotFound):
				return err
			case *partner == "" && *upstream == "":
				return fmt.Errorf("no entity with tax ID %s%s (an external tax ID needs --partner or --upstream)", country, nif)
			default:
				*side.external = store.PartyKey{Country: country, NIF: nif, Name: *name}
			}
		}
		if *partner != "" && *upstream != "" {
			return usagef("give --partner or --upstream, not both")
		}
		c, err := a.wf.CreateConnection(a.ctx, n)
		if err != nil {
			return reword(err, server.CodeExists, "a connection from %s to %s exists already", *from, *to)
		}
		return a.print(c, func(w io.Writer) { printConnections(w, []store.Connection{c}) })
	}
}

// connectionSetState approves, declines or sets pending a connection; the operator that asked for it
// through the API is told by e-mail.
func connectionSetState(state string) func(*flag.FlagSet) func(*adminEnv) error {
	return func(fs *flag.FlagSet) func(*adminEnv) error {
		id := fs.Int64("id", 0, "connection id (from connection list)")
		reason := fs.String("reason", "", "reason, shown to the requester")
		observation := fs.String("admin-observation", "", "the support team's note, shown to the requester")
		partner := fs.String("partner", "", "the AS2 partner that reaches the external party")
		upstream := fs.String("upstream", "", "the upstream broker that reaches the external party")
		return func(a *adminEnv) error {
			d := server.ConnectionDecision{State: state, Reason: *reason}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			if set["admin-observation"] {
				d.AdminObservation = observation
			}
			if set["partner"] {
				d.Partner = partner
			}
			if set["upstream"] {
				d.Upstream = upstream
			}
			if state == store.ConnDeclined && *reason == "" {
				return usagef("--reason is required to decline")
			}
			c, err := a.wf.DecideConnection(a.ctx, *id, d)
			if err != nil {
				return reword(err, server.CodeNotFound, "no connection with id %d", *id)
			}
			return a.print(c, func(w io.Writer) { printConnections(w, []store.Connection{c}) })
		}
	}
}

func connectionList(*flag.FlagSet) func(*adminEnv) error {
	return func(a *adminEnv) error {
		cs, err := a.st.Connections(a.ctx)
		if err != nil {
			return err
		}
		if cs == nil {
			cs = []store.Connection{}
		}
		return a.print(cs, func(w io.Writer) { printConnections(w, cs) })
	}
}

func printConnections(w io.Writer, cs []store.Connection) {
	fmt.Fprintln(w, "ID\tREFERENCE\tFROM\tTO\tSTATE\tVIA\tREASON\tUPDATED")
	for _, c := range cs {
		via := "-"
		switch {
		case c.Upstream != "":
			via = "upstream " + c.Upstream
		case c.Partner != "":
			via = "partner " + c.Partner
		}
		fmt.Fprintf(w, "%d\t%s\t%s%s %s\t%s%s %s\t%s\t%s\t%s\t%s\n", c.ID, c.Reference, c.From.Country, c.From.NIF, c.From.Name,
			c.To.Country, c.To.NIF, c.To.Name, c.State, via, c.Reason, c.UpdatedAt)
	}
}

func ediList(fs *flag.FlagSet) func(*adminEnv) error {
	state := fs.String("state", "", "only deliveries in this state: queued, awaiting, done or failed")
	limit := fs.Int("limit", 50, "at most this many (up to 1000)")
	return func(a *adminEnv) error {
		if *limit < 1 || *limit > 1000 {
			return usagef("--limit must be between 1 and 1000")
		}
		ds, err := a.st.EDIDeliveries(a.ctx, store.EDIFilter{State: *state, Limit: *limit})
		if err != nil {
			return err
		}
		if ds == nil {
			ds = []store.EDIDelivery{}
		}
		return a.print(ds, func(w io.Writer) {
			fmt.Fprintln(w, "ID\tDOCUMENT\tKIND\tVIA\tTO\tMESSAGE_ID\tSTATE\tATTEMPTS\tNEXT\tLAST_ERROR")
			for _, d := range ds {
				fmt.Fprintf(w, "%d\t%d\t%s\t%s %s\t%s\t%s\t%s\t%d\t%s\t%s\n", d.ID, d.DocumentID, d.Kind, d.Connector, d.Partner, d.ToNIF,
					d.MessageID, d.State, d.Attempts, d.NextAt, d.LastError)
			}
		})
	}
}
