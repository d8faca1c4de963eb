package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"einvoice/store"
)

func TestPortalUsersSignInAndSessions(t *testing.T) {
	env := newTestEnv(t, func(c *Config) { c.Portal.LoginFailures = 3 })
	w, ctx := env.srv.Workflow, context.Background()

	for _, bad := range []NewUser{
		{Username: "x", Password: "long enough pw", Role: "viewer", EntityID: env.entity.ID},
		{Username: "ana", Password: "short", Role: "viewer", EntityID: env.entity.ID},
		{Username: "ana", Password: "long enough pw", Role: "owner", EntityID: env.entity.ID},
		{Username: "ana", Password: "long enough pw", Role: "viewer"},
	} {
		var fe FieldErrors
		if _, err := w.CreateUser(ctx, bad); !errors.As(err, &fe) {
			t.Fatalf("%+v accepted: %v", bad, err)
		}
	}
	u, err := w.CreateUser(ctx, NewUser{Username: " Ana ", Password: "long enough pw", Role: "operator", EntityID: env.entity.ID})
	if err != nil || u.Username != "ana" || len(u.Memberships) != 1 || u.Memberships[0].Role != "operator" {
		t.Fatalf("created %+v %v", u, err)
	}
	if _, err := w.CreateUser(ctx, NewUser{Username: "ana", Password: "long enough pw", Role: "support"}); !hasCode(err, CodeUsernameTaken) {
		t.Fatalf("duplicate: %v", err)
	}

	s, err := w.Login(ctx, Login{Username: "ANA", Password: "long enough pw", Address: "10.0.0.1"})
	if err != nil || s.Token == "" || s.User.ID != u.ID {
		t.Fatalf("login: %+v %v", s, err)
	}
	if _, got, err := w.SessionUser(ctx, s.Token); err != nil || got.ID != u.ID {
		t.Fatalf("session of the token: %+v %v", got, err)
	}
	if _, _, err := w.SessionUser(ctx, s.Token+"x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("wrong token: %v", err)
	}

	// Past three failures, the address is refused, and so are failing attempts for the username from
	// elsewhere; the right password still signs in from another address.
	for range 3 {
		if _, err := w.Login(ctx, Login{Username: "ana", Password: "wrong password", Address: "10.0.0.2"}); !hasCode(err, CodeLoginFailed) {
			t.Fatalf("wrong password: %v", err)
		}
	}
	for i, l := range []Login{
		{Username: "ana", Password: "wrong password", Address: "10.0.0.2"},
		{Username: "ana", Password: "long enough pw", Address: "10.0.0.2"},
		{Username: "ana", Password: "wrong again", Address: "10.0.0.9"},
	} {
		_, err := w.Login(ctx, l)
		if wait, ok := RetryAfter(err); !hasCode(err, CodeAuthThrottled) || !ok || wait <= 0 {
			t.Fatalf("attempt %d past the limit: %v", i+4, err)
		}
	}
	if _, err := w.Login(ctx, Login{Username: "ana", Password: "long enough pw", Address: "10.0.0.9"}); err != nil {
		t.Fatalf("the right password from another address: %v", err)
	}
	if _, err := w.CreateUser(ctx, NewUser{Username: "rui", Password: "long enough pw", Role: "viewer", EntityID: env.entity.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Login(ctx, Login{Username: "rui", Password: "long enough pw", Address: "10.0.0.3"}); err != nil {
		t.Fatalf("another user from another address: %v", err)
	}
	env.srv.now = func() time.Time { return time.Now().Add(16 * time.Minute) }
	second, err := w.Login(ctx, Login{Username: "ana", Password: "long enough pw", Address: "10.0.0.2"})
	if err != nil {
		t.Fatalf("after the window: %v", err)
	}

	// A password change keeps the session it is made from and ends the others.
	if err := w.ChangePassword(ctx, u.ID, second.Session.ID, "wrong password", "another long one"); !hasCode(err, CodeWrongPassword) {
		t.Fatalf("wrong current password: %v", err)
	}
	if err := w.ChangePassword(ctx, u.ID, second.Session.ID, "long enough pw", "another long one"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.SessionUser(ctx, s.Token); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("other session kept: %v", err)
	}
	if _, _, err := w.SessionUser(ctx, second.Token); err != nil {
		t.Fatalf("own session ended: %v", err)
	}
	if err := w.EndSession(ctx, u.ID+100, second.Session.ID); !hasCode(err, CodeNotFound) {
		t.Fatalf("another user's session: %v", err)
	}
	if _, err := w.SetUserDisabled(ctx, "ana", true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.SessionUser(ctx, second.Token); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("disabled user's session: %v", err)
	}
	if _, err := w.Login(ctx, Login{Username: "ana", Password: "another long one", Address: "10.0.0.4"}); !hasCode(err, CodeLoginFailed) {
		t.Fatalf("disabled user signed in: %v", err)
	}
}

// hasCode reports whether err is the API error or a field error of code.
func hasCode(err error, code *Code) bool {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.code == code
	}
	var fe FieldErrors
	if errors.As(err, &fe) {
		for _, p := range fe {
			if p.Code == code {
				return true
			}
		}
	}
	return false
}
