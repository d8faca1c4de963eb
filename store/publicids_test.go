package store

import (
	"context"
	"errors"
	"strconv"
	"testing"
)

func TestPublicIDsAreOpaqueOfOneKindAndUnforgeable(t *testing.T) {
	s := open(t, t.TempDir())
	seen := map[string]bool{}
	for _, kind := range []IDKind{KindDocument, KindFile, KindHistory, KindEvent, KindEmail, KindConnection, KindEntity, KindDelivery} {
		for _, id := range []int64{1, 2, 3, 1 << 40} {
			p := s.PublicID(kind, id)
			if _, err := strconv.ParseInt(p, 10, 64); err == nil || len(p) != publicIDLen || seen[p] {
				t.Fatalf("kind %d id %d: public id %q", kind, id, p)
			}
			seen[p] = true
			if got, err := s.ParsePublicID(kind, p); err != nil || got != id {
				t.Fatalf("kind %d id %d: read back %d, %v", kind, id, got, err)
			}
			if _, err := s.ParsePublicID(kind%KindDelivery+1, p); !errors.Is(err, ErrNotFound) {
				t.Fatalf("kind %d id %d read as another kind: %v", kind, id, err)
			}
		}
	}
	doc := s.PublicID(KindDocument, 7)
	flipped := []byte(doc)
	flipped[3] ^= 1
	for _, bad := range []string{"", "7", doc[:publicIDLen-2], doc + "00", string(flipped), "zz" + doc[2:]} {
		if _, err := s.ParsePublicID(KindDocument, bad); !errors.Is(err, ErrNotFound) {
			t.Fatalf("%q read as a document id: %v", bad, err)
		}
	}

	// Another installation's key makes other identifiers, and reads none of these.
	other, err := Open(context.Background(), t.TempDir(), []byte("another installation's key"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if other.PublicID(KindDocument, 7) == doc {
		t.Fatal("the identifiers do not depend on the key")
	}
	if _, err := other.ParsePublicID(KindDocument, doc); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another key read the id: %v", err)
	}
}

// Existing rows have their public identifiers without a migration, and keep them across restarts.
func TestPublicIDsOfStoredRowsSurviveAReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s := open(t, dir)
	a, _ := s.CreateEntity(ctx, NewEntity{Name: "A", Country: "PT", NIF: "500000000"})
	b, _ := s.CreateEntity(ctx, NewEntity{Name: "B", Country: "PT", NIF: "503504564"})
	c, err := s.CreateConnection(ctx, NewConnection{FromEntityID: a.ID, ToEntityID: b.ID})
	if err != nil || c.PublicID != s.PublicID(KindConnection, c.ID) || c.To.PublicID != s.PublicID(KindEntity, b.ID) {
		t.Fatalf("connection %+v, %v", c, err)
	}
	s.Close()
	again, err := open(t, dir).ConnectionByID(ctx, c.ID)
	if err != nil || again.PublicID != c.PublicID || again.From.PublicID != c.From.PublicID {
		t.Fatalf("after reopen %+v, %v", again, err)
	}
}

// BenchmarkPublicID is the cost of one identifier out and back in.
func BenchmarkPublicID(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(context.Background(), dir, key)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := 0; b.Loop(); i++ {
		if _, err := s.ParsePublicID(KindDocument, s.PublicID(KindDocument, int64(i+1))); err != nil {
			b.Fatal(err)
		}
	}
}
