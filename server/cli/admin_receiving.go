package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"einvoice/server"
	"einvoice/store"
)

// Admin commands for the recipient's side: process states and webhooks.

func processStateCreate(fs *flag.FlagSet) func(*adminEnv) error {
	entity := entityFlags(fs)
	code := fs.String("code", "", "identification_code, as the API shows it")
	name := fs.String("name", "", "name")
	description := fs.String("description", "", "description")
	return func(a *adminEnv) error {
		e, err := entity(a)
		if err != nil {
			return err
		}
		p, err := a.wf.CreateProcessState(a.ctx, store.ProcessState{EntityID: e.ID, Code: *code, Name: *name, Description: *description})
		if err != nil {
			return reword(err, server.CodeExists, "%s has a process state %s already", e.Name, *code)
		}
		return a.print(p, func(w io.Writer) { printProcessStates(w, []store.ProcessState{p}) })
	}
}

func processStateList(fs *flag.FlagSet) func(*adminEnv) error {
	entity := entityFlags(fs)
	return func(a *adminEnv) error {
		e, err := entity(a)
		if err != nil {
			return err
		}
		return processStateListOf(a, e)
	}
}

func processStateDelete(fs *flag.FlagSet) func(*adminEnv) error {
	entity := entityFlags(fs)
	code := fs.String("code", "", "identification_code")
	return func(a *adminEnv) error {
		e, err := entity(a)
		if err != nil {
			return err
		}
		if err := a.wf.DeleteProcessState(a.ctx, e.ID, *code); err != nil {
			return reword(err, server.CodeNotFound, "%s has no process state %q", e.Name, *code)
		}
		return processStateListOf(a, e)
	}
}

func processStateListOf(a *adminEnv, e store.Entity) error {
	ps, err := a.st.ProcessStates(a.ctx, e.ID)
	if err != nil {
		return err
	}
	return a.print(ps, func(w io.Writer) { printProcessStates(w, ps) })
}

func printProcessStates(w io.Writer, ps []store.ProcessState) {
	fmt.Fprintln(w, "CODE\tNAME\tDESCRIPTION")
	for _, p := range ps {
		fmt.Fprintf(w, "%s\t%s\t%s\n", p.Code, p.Name, p.Description)
	}
}

func webhookCreate(fs *flag.FlagSet) func(*adminEnv) error {
	entity := entityFlags(fs)
	target := fs.String("url", "", "address the events are posted to (http or https)")
	key := fs.String("key", "", "key sent as Bearer and used to sign (Standard Webhooks; whsec_<base64> accepted)")
	events := fs.String("events", strings.Join(server.WebhookEvents, ","), "comma-separated: "+strings.Join(server.WebhookEvents, ", "))
	return func(a *adminEnv) error {
		e, err := entity(a)
		if err != nil {
			return err
		}
		w, err := a.wf.CreateWebhook(a.ctx, e.ID, *target, *key, commaList(*events))
		if err != nil {
			return err
		}
		return a.print(w, func(out io.Writer) { printWebhooks(out, []store.Webhook{w}) })
	}
}

func webhookList(fs *flag.FlagSet) func(*adminEnv) error {
	nif := fs.String("nif", "", "tax ID of the entity (all entities when absent)")
	country := fs.String("country", "PT", "country of the tax ID")
	return func(a *adminEnv) error {
		var id int64
		if *nif != "" {
			e, err := a.entityByTaxID("nif", *nif, *country)
			if err != nil {
				return err
			}
			id = e.ID
		}
		ws, err := a.st.Webhooks(a.ctx, id)
		if err != nil {
			return err
		}
		return a.print(ws, func(w io.Writer) { printWebhooks(w, ws) })
	}
}

func printWebhooks(w io.Writer, ws []store.Webhook) {
	fmt.Fprintln(w, "ID\tENTITY\tURL\tEVENTS\tCREATED")
	for _, h := range ws {
		fmt.Fprintf(w, "%d\t%d\t%s\t%s\t%s\n", h.ID, h.EntityID, h.URL, strings.Join(h.Events, ","), h.CreatedAt)
	}
}

func webhookDelete(fs *flag.FlagSet) func(*adminEnv) error {
	id := fs.Int64("id", 0, "webhook id (from webhook list)")
	return func(a *adminEnv) error {
		if err := a.wf.DeleteWebhook(a.ctx, *id); err != nil {
			return reword(err, server.CodeNotFound, "no webhook %d", *id)
		}
		return a.print(map[string]int64{"deleted": *id}, func(w io.Writer) { fmt.Fprintf(w, "webhook %d deleted\n", *id) })
	}
}

func webhookAttempts(fs *flag.FlagSet) func(*adminEnv) error {
	id := fs.Int64("id", 0, "webhook id (all webhooks when absent)")
	limit := fs.Int("limit", 50, "how many of the latest attempts")
	return func(a *adminEnv) error {
		if *limit < 1 || *limit > 10000 {
			return usagef("--limit must be between 1 and 10000")
		}
		as, err := a.st.WebhookAttempts(a.ctx, *id, *limit)
		if err != nil {
			return err
		}
		return a.print(as, func(w io.Writer) {
			fmt.Fprintln(w, "WHEN\tWEBHOOK\tEVENT\tATTEMPT\tSTATUS\tMS\tERROR")
			for _, t := range as {
				fmt.Fprintf(w, "%s\t%d\tevt_%d\t%d\t%d\t%d\t%s\n", t.CreatedAt, t.WebhookID, t.OutboxID, t.Attempt, t.StatusCode, t.LatencyMS, t.Error)
			}
		})
	}
}
