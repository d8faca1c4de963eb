package store

import (
	"context"
	"errors"
	"testing"
)

// What a credential may do for an entity, read with the entity: nothing before it is authorised,
// acting after, the handshake once done; an unknown key is not found.
func TestEntityAccess(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	e, err := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "500000000"})
	if err != nil {
		t.Fatal(err)
	}
	cred, _, err := s.CreatePlatformToken(ctx, "p", []string{"documents"})
	if err != nil {
		t.Fatal(err)
	}
	check := func(step string, want Access) {
		t.Helper()
		got, access, err := s.EntityAccess(ctx, e.PublicKey, cred.ID)
		if err != nil || got.ID != e.ID || got.NIF != e.NIF || access != want {
			t.Fatalf("%s: %+v %+v %v, want access %+v", step, got, access, err, want)
		}
	}
	check("not authorised", Access{})
	if err := s.Authorize(ctx, cred.ID, e.ID); err != nil {
		t.Fatal(err)
	}
	check("authorised", Access{Authorized: true})
	if err := s.SetHandshake(ctx, cred.ID, e.ID, true); err != nil {
		t.Fatal(err)
	}
	check("handshake", Access{Authorized: true, Handshake: true})
	if _, _, err := s.EntityAccess(ctx, "no such key", cred.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown key: %v", err)
	}
}
