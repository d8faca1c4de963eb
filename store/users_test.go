package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestPasswordHashes(t *testing.T) {
	h := HashPassword("correct horse")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") || h == HashPassword("correct horse") {
		t.Fatalf("hash %q: argon2id with a fresh salt each time", h)
	}
	if ok, err := CheckPassword(h, "correct horse"); !ok || err != nil {
		t.Fatalf("right password: %v %v", ok, err)
	}
	if ok, err := CheckPassword(h, "correct hors"); ok || err != nil {
		t.Fatalf("wrong password: %v %v", ok, err)
	}
	for _, bad := range []string{"", "plain", "$argon2id$v=19$m=0,t=1,p=1$AA$AA", "$argon2id$v=19$m=99999999,t=1,p=1$AA$AA",
		strings.Replace(h, "argon2id", "argon2i", 1)} {
		if ok, err := CheckPassword(bad, "x"); ok || err == nil {
			t.Fatalf("malformed hash %q accepted", bad)
		}
	}
}

func TestUsersAndSessions(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	e, err := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "500000000"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.CreateUser(ctx, NewUser{Username: "ana", PasswordHash: HashPassword("pw")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateUser(ctx, NewUser{Username: "ana", PasswordHash: "x"}); !errors.Is(err, ErrConflict) {
		t.Fatalf("duplicate username: %v", err)
	}
	if err := s.SetMembership(ctx, u.ID, e.ID, RoleViewer); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMembership(ctx, u.ID, e.ID, RoleAdmin); err != nil {
		t.Fatal(err)
	}
	got, hash, err := s.UserByUsername(ctx, "ana")
	if err != nil || len(got.Memberships) != 1 || got.Memberships[0].Role != RoleAdmin || got.Memberships[0].NIF != "500000000" {
		t.Fatalf("user %+v %v", got, err)
	}
	if ok, _ := CheckPassword(hash, "pw"); !ok {
		t.Fatal("stored hash does not check")
	}

	now := time.Now()
	a, err := s.CreateSession(ctx, HashToken("a"), u.ID, now.Add(time.Hour), "browser A", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.CreateSession(ctx, HashToken("b"), u.ID, now.Add(time.Hour), "browser B", "127.0.0.1")
	if _, err := s.SessionByTokenHash(ctx, HashToken("a"), now.Add(2*time.Hour)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired session found: %v", err)
	}
	if got, err := s.SessionByTokenHash(ctx, HashToken("a"), now); err != nil || got.ID != a.ID || got.UserID != u.ID {
		t.Fatalf("session %+v %v", got, err)
	}
	if list, _ := s.SessionsOfUser(ctx, u.ID, now); len(list) != 2 {
		t.Fatalf("%d sessions listed", len(list))
	}
	if err := s.DeleteSession(ctx, u.ID+1, b.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another user's session deleted: %v", err)
	}
	// A new password ends every other session.
	if err := s.SetPasswordHash(ctx, u.ID, HashPassword("new"), a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SessionByTokenHash(ctx, HashToken("b"), now); !errors.Is(err, ErrNotFound) {
		t.Fatalf("other session kept after a password change: %v", err)
	}
	if err := s.SetUserDisabled(ctx, u.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SessionByTokenHash(ctx, HashToken("a"), now); !errors.Is(err, ErrNotFound) {
		t.Fatalf("session kept after disabling: %v", err)
	}
}
