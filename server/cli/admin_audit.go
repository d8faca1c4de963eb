package cli

import (
	"flag"
	"fmt"
	"io"
	"time"

	"einvoice/store"
)

// auditList prints the audit log: every change the support team made, from the portal or here.
func auditList(fs *flag.FlagSet) func(*adminEnv) error {
	actor := fs.String("actor", "", "only changes by this portal user (or cli, system)")
	action := fs.String("action", "", "only this action (entity.create), or a family ending in a dot (entity.)")
	subject := fs.String("subject", "", "only changes whose subject contains this")
	from := fs.String("from", "", "from this day (YYYY-MM-DD)")
	to := fs.String("to", "", "up to this day (YYYY-MM-DD)")
	limit := fs.Int("limit", 50, "at most this many, newest first")
	page := fs.Int("page", 1, "which page of --limit entries")
	return func(a *adminEnv) error {
		for name, d := range map[string]string{"from": *from, "to": *to} {
			if _, err := time.Parse(time.DateOnly, d); d != "" && err != nil {
				return usagef("--%s must be a date YYYY-MM-DD", name)
			}
		}
		if *limit < 1 || *limit > 500 || *page < 1 {
			return usagef("--limit must be between 1 and 500, --page at least 1")
		}
		entries, total, err := a.wf.AuditLog(a.ctx, store.AuditFilter{Actor: *actor, Action: *action, Subject: *subject,
			From: *from, To: *to, Offset: (*page - 1) * *limit, Limit: *limit})
		if err != nil {
			return err
		}
		return a.print(entries, func(w io.Writer) {
			fmt.Fprintf(w, "%d change(s)\n", total)
			fmt.Fprintln(w, "TIME\tACTOR\tACTION\tSUBJECT\tDETAIL")
			for _, e := range entries {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", e.CreatedAt, e.Actor, e.Action, e.Subject, e.Detail)
			}
		})
	}
}
