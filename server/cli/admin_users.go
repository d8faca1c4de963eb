package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"einvoice/server"
	"einvoice/store"
)

// The portal's users: `einvoice admin user create|grant|list|disable|enable|reset-password`.

func userCreate(fs *flag.FlagSet) func(*adminEnv) error {
	username := fs.String("username", "", "the user's name (lowercase letters, digits, . _ @ -)")
	entityNIF := fs.String("entity", "", "tax ID of the entity the user belongs to (not for --role support)")
	country := fs.String("country", "PT", "country of --entity")
	role := fs.String("role", "", "admin, operator, viewer or support")
	passwordFile := fs.String("password-file", "", "file whose first line is the password (else asked)")
	return func(a *adminEnv) error {
		if *username == "" || *role == "" {
			return usagef("--username and --role are required")
		}
		n := server.NewUser{Username: *username, Role: *role}
		if *role != server.RoleSupport {
			e, err := a.entityByTaxID("entity", *entityNIF, *country)
			if err != nil {
				return err
			}
			n.EntityID = e.ID
		} else if *entityNIF != "" {
			return usagef("a support user sees every entity: leave out --entity")
		}
		var err error
		if n.Password, err = readSecret("password for "+*username, *passwordFile, ""); err != nil {
			return err
		}
		u, err := a.wf.CreateUser(a.ctx, n)
		if err != nil {
			return err
		}
		return a.print(u, func(w io.Writer) { printUser(w, u) })
	}
}

func userGrant(fs *flag.FlagSet) func(*adminEnv) error {
	username := fs.String("username", "", "the user")
	entityNIF := fs.String("entity", "", "tax ID of the entity")
	country := fs.String("country", "PT", "country of --entity")
	role := fs.String("role", "", "admin, operator or viewer")
	return func(a *adminEnv) error {
		e, err := a.entityByTaxID("entity", *entityNIF, *country)
		if err != nil {
			return err
		}
		u, err := a.wf.GrantRole(a.ctx, *username, e.ID, *role)
		if err != nil {
			return err
		}
		return a.print(u, func(w io.Writer) { printUser(w, u) })
	}
}

func userList(*flag.FlagSet) func(*adminEnv) error {
	return func(a *adminEnv) error {
		users, err := a.wf.Users(a.ctx)
		if err != nil {
			return err
		}
		return a.print(users, func(w io.Writer) {
			fmt.Fprintln(w, "USERNAME\tSTATE\tROLES")
			for _, u := range users {
				fmt.Fprintf(w, "%s\t%s\t%s\n", u.Username, map[bool]string{true: "disabled", false: "active"}[u.Disabled], roles(u))
			}
		})
	}
}

func userSetDisabled(disabled bool) func(fs *flag.FlagSet) func(*adminEnv) error {
	return func(fs *flag.FlagSet) func(*adminEnv) error {
		username := fs.String("username", "", "the user")
		return func(a *adminEnv) error {
			u, err := a.wf.SetUserDisabled(a.ctx, *username, disabled)
			if err != nil {
				return err
			}
			return a.print(u, func(w io.Writer) { printUser(w, u) })
		}
	}
}

func userResetPassword(fs *flag.FlagSet) func(*adminEnv) error {
	username := fs.String("username", "", "the user")
	passwordFile := fs.String("password-file", "", "file whose first line is the new password (else asked)")
	return func(a *adminEnv) error {
		if *username == "" {
			return usagef("--username is required")
		}
		password, err := readSecret("new password for "+*username, *passwordFile, "")
		if err != nil {
			return err
		}
		if err := a.wf.ResetPassword(a.ctx, *username, password); err != nil {
			return err
		}
		return a.print(map[string]string{"username": *username, "password": "reset"}, func(w io.Writer) {
			fmt.Fprintf(w, "password of %s reset; its sessions ended\n", *username)
		})
	}
}

func roles(u store.User) string {
	if u.Support {
		return "support (every entity)"
	}
	var out []string
	for _, m := range u.Memberships {
		out = append(out, m.Role+" at "+m.Country+m.NIF)
	}
	return strings.Join(out, ", ")
}

func printUser(w io.Writer, u store.User) {
	fmt.Fprintf(w, "username\t%s\nstate\t%s\nroles\t%s\ncreated\t%s\n", u.Username,
		map[bool]string{true: "disabled", false: "active"}[u.Disabled], roles(u), u.CreatedAt)
}
