package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A token found valid is kept briefly: disabling its credential here ends it at once, its expiry
// ends it when due, and a credential disabled by another process ends it within tokenCacheTTL.
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
		t.Fatalf("disabled elsewhere, within %v: %v", tokenCacheTTL, err)
	}
	now = now.Add(tokenCacheTTL)
	if err := lookup(token); !errors.Is(err, ErrNotFound) {
		t.Fatalf("disabled elsewhere, after %v: %v", tokenCacheTTL, err)
	}

	cred, _, _ = s.CreateClient(ctx, "e", []string{"documents"})
	token, _, _ = s.IssueAccessToken(ctx, cred.ID, nil, time.Second)
	if err := lookup(token); err != nil {
		t.Fatal(err)
	}
	now = now.Add(tokenCacheTTL / 2)
	if err := lookup(token); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired: %v", err)
	}
}
