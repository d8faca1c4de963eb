package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A token found valid (an OAuth access token, or a platform credential's token) is kept briefly:
// disabling its credential here ends it at once, and a credential disabled by another process ends
// it within BriefTTL.
func TestTokensKeptBriefly(t *testing.T) {
	type credential struct {
		id    int64
		token string
	}
	for _, kind := range []struct {
		name  string
		issue func(s *Store, ctx context.Context) (credential, error)
		valid func(s *Store, ctx context.Context, token string) bool
	}{
		{"access token", func(s *Store, ctx context.Context) (credential, error) {
			cred, _, err := s.CreateClient(ctx, "c", []string{"documents"})
			if err != nil {
				return credential{}, err
			}
			token, _, err := s.IssueAccessToken(ctx, cred.ID, nil, time.Hour)
			return credential{cred.ID, token}, err
		}, func(s *Store, ctx context.Context, token string) bool {
			_, err := s.LookupAccessToken(ctx, token)
			return err == nil
		}},
		{"platform token", func(s *Store, ctx context.Context) (credential, error) {
			cred, token, err := s.CreatePlatformToken(ctx, "p", []string{"documents"})
			return credential{cred.ID, token}, err
		}, func(s *Store, ctx context.Context, token string) bool {
			c, err := s.CredentialByPlatformToken(ctx, token)
			return err == nil && !c.Disabled
		}},
	} {
		t.Run(kind.name, func(t *testing.T) {
			dir := t.TempDir()
			s, other := open(t, dir), open(t, dir)
			ctx := context.Background()
			now := time.Now()
			s.SetClock(func() time.Time { return now })
			for _, disabler := range []*Store{s, other} {
				cred, err := kind.issue(s, ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !kind.valid(s, ctx, cred.token) {
					t.Fatal("a new token is refused")
				}
				if err := disabler.DisableCredential(ctx, cred.id); err != nil {
					t.Fatal(err)
				}
				here := disabler == s
				if kind.valid(s, ctx, cred.token) == here {
					t.Fatalf("disabled (here: %v), within %v: valid %v", here, BriefTTL, !here)
				}
				now = now.Add(BriefTTL)
				if kind.valid(s, ctx, cred.token) {
					t.Fatalf("disabled (here: %v), after %v: still valid", here, BriefTTL)
				}
			}
			if kind.valid(s, ctx, "no such token") {
				t.Fatal("an unknown token is valid")
			}
		})
	}
}

// A kept access token still ends when it expires.
func TestKeptAccessTokenExpires(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	now := time.Unix(time.Now().Unix(), 900_000_000) // tokens expire on whole seconds: this one in 0.1 s
	s.SetClock(func() time.Time { return now })
	cred, _, err := s.CreateClient(ctx, "e", []string{"documents"})
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := s.IssueAccessToken(ctx, cred.ID, nil, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.LookupAccessToken(ctx, token); err != nil {
		t.Fatal(err)
	}
	now = now.Add(BriefTTL / 2)
	if _, err := s.LookupAccessToken(ctx, token); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired: %v", err)
	}
}

// The entity a credential acts for is kept briefly once the credential may act for it: the store's
// own changes of the entity or the authorisation show at once, another process's within BriefTTL,
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
		t.Fatalf("changed elsewhere, within %v: %q %+v", BriefTTL, got.Name, a)
	}
	now = now.Add(BriefTTL)
	if got, a := access(); got.Name != "C" || a.Handshake {
		t.Fatalf("changed elsewhere, after %v: %q %+v", BriefTTL, got.Name, a)
	}

	if err := s.Update(ctx, func(tx *Tx) error { return tx.Spend(e.ID, 0, 1, "test", true) }); err != nil {
		t.Fatal(err)
	}
	if got, _ := access(); got.Transactions != e.Transactions-1 {
		t.Fatalf("balance after a spend here: %d, want %d", got.Transactions, e.Transactions-1)
	}
}

// A value read before the cache was cleared is not kept after it: the change that cleared it may
// have come after the read.
func TestBriefCacheKeepsNothingReadBeforeAClear(t *testing.T) {
	var c briefCache[string, int]
	now := time.Now()
	_, generation, ok := c.get("k", now)
	if ok {
		t.Fatal("a value in an empty cache")
	}
	c.clear() // a change commits while the value is being read
	c.put("k", 1, generation, now)
	if v, _, ok := c.get("k", now); ok {
		t.Fatalf("kept %d, read before the clear", v)
	}
	_, generation, _ = c.get("k", now)
	c.put("k", 2, generation, now)
	if v, _, ok := c.get("k", now); !ok || v != 2 {
		t.Fatalf("read after the clear: %d %v", v, ok)
	}
	if _, _, ok := c.get("k", now.Add(BriefTTL)); ok {
		t.Fatal("kept past BriefTTL")
	}
}
