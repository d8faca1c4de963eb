package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A token found valid is kept briefly: disabling its credential here ends it at once, its expiry
// ends it when due, and a credential disabled by another process ends it within briefTTL.
func TestAccessTokensKeptBriefly(t *testing.T) {
	dir := t.TempDir()
	s, other := open(t, dir), open(t, dir)
	ctx := context.Background()
	now := time.Unix(time.Now().Unix(), 900_000_000) // tokens expire on whole seconds: this one in 0.1 s
	s.SetClock(func() time.Time { return now })
	lookup := func(token string) error { _, err := s.LookupAccessToken(ctx, token); return err }

	cred, _, err := s.CreateClient(ctx, "c", []string{"documents"})
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := s.IssueAccessToken(ctx, cred.ID, nil, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := lookup(token); err != nil {
		t.Fatal(err)
	}
	if err := s.DisableCredential(ctx, cred.ID); err != nil {
		t.Fatal(err)
	}
	if err := lookup(token); !errors.Is(err, ErrNotFound) {
		t.Fatalf("disabled here: %v", err)
	}

	cred, _, _ = s.CreateClient(ctx, "d", []string{"documents"})
	token, _, _ = s.IssueAccessToken(ctx, cred.ID, nil, time.Hour)
	if err := lookup(token); err != nil {
		t.Fatal(err)
	}
	if err := other.DisableCredential(ctx, cred.ID); err != nil {
		t.Fatal(err)
	}
	if err := lookup(token); err != nil {
		t.Fatalf("disabled elsewhere, within %v: %v", briefTTL, err)
	}
	now = now.Add(briefTTL)
	if err := lookup(token); !errors.Is(err, ErrNotFound) {
		t.Fatalf("disabled elsewhere, after %v: %v", briefTTL, err)
	}

	cred, _, _ = s.CreateClient(ctx, "e", []string{"documents"})
	token, _, _ = s.IssueAccessToken(ctx, cred.ID, nil, time.Second)
	if err := lookup(token); err != nil {
		t.Fatal(err)
	}
	now = now.Add(briefTTL / 2)
	if err := lookup(token); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired: %v", err)
	}
}

// The entity a credential acts for is kept briefly once the credential may act for it: the store's
// own changes of the entity or the authorisation show at once, another process's within briefTTL,
// and an answer that refuses the credential is not kept.
func TestEntityAccessKeptBriefly(t *testing.T) {
	dir := t.TempDir()
	s, other := open(t, dir), open(t, dir)
	ctx := context.Background()
	now := time.Now()
	s.SetClock(func() time.Time { return now })
	cred, _, err := s.CreatePlatformToken(ctx, "p", []string{"documents"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "508025338"})
	if err != nil {
		t.Fatal(err)
	}
	access := func() (Entity, Access) {
		t.Helper()
		got, a, err := s.EntityAccess(ctx, e.PublicKey, cred.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got, a
	}

	if _, a := access(); a.Authorized {
		t.Fatal("authorised before Authorize")
	}
	if err := other.Authorize(ctx, cred.ID, e.ID); err != nil {
		t.Fatal(err)
	}
	if _, a := access(); !a.Authorized || a.Handshake {
		t.Fatalf("authorised elsewhere: %+v (a refusal is not kept)", a)
	}
	if err := s.SetHandshake(ctx, cred.ID, e.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, a := access(); !a.Handshake {
		t.Fatal("the handshake done here is not seen at once")
	}
	name := "B"
	if _, err := s.UpdateEntity(ctx, e.ID, EntityChanges{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if got, _ := access(); got.Name != "B" {
		t.Fatalf("renamed here: %q", got.Name)
	}

	if err := other.SetHandshake(ctx, cred.ID, e.ID, false); err != nil {
		t.Fatal(err)
	}
	name = "C"
	if _, err := other.UpdateEntity(ctx, e.ID, EntityChanges{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if got, a := access(); got.Name != "B" || !a.Handshake {
		t.Fatalf("changed elsewhere, within %v: %q %+v", briefTTL, got.Name, a)
	}
	now = now.Add(briefTTL)
	if got, a := access(); got.Name != "C" || a.Handshake {
		t.Fatalf("changed elsewhere, after %v: %q %+v", briefTTL, got.Name, a)
	}

	if err := s.Update(ctx, func(tx *Tx) error { return tx.Spend(e.ID, 0, 1, "test", true) }); err != nil {
		t.Fatal(err)
	}
	if got, _ := access(); got.Transactions != e.Transactions-1 {
		t.Fatalf("balance after a spend here: %d, want %d", got.Transactions, e.Transactions-1)
	}
}

// A platform credential found by its token is kept briefly, as access tokens are.
func TestPlatformTokensKeptBriefly(t *testing.T) {
	dir := t.TempDir()
	s, other := open(t, dir), open(t, dir)
	ctx := context.Background()
	now := time.Now()
	s.SetClock(func() time.Time { return now })
	lookup := func(token string) error { _, err := s.CredentialByPlatformToken(ctx, token); return err }

	cred, token, err := s.CreatePlatformToken(ctx, "p", []string{"documents"})
	if err != nil {
		t.Fatal(err)
	}
	if err := lookup(token); err != nil {
		t.Fatal(err)
	}
	if err := s.DisableCredential(ctx, cred.ID); err != nil {
		t.Fatal(err)
	}
	if c, err := s.CredentialByPlatformToken(ctx, token); err != nil || !c.Disabled {
		t.Fatalf("disabled here: %+v %v", c, err)
	}

	cred, token, _ = s.CreatePlatformToken(ctx, "q", []string{"documents"})
	if err := lookup(token); err != nil {
		t.Fatal(err)
	}
	if err := other.DisableCredential(ctx, cred.ID); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.CredentialByPlatformToken(ctx, token); c.Disabled {
		t.Fatalf("disabled elsewhere, seen within %v", briefTTL)
	}
	now = now.Add(briefTTL)
	if c, _ := s.CredentialByPlatformToken(ctx, token); !c.Disabled {
		t.Fatalf("disabled elsewhere, not seen after %v", briefTTL)
	}
	if err := lookup("no such token"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown token: %v", err)
	}
}
