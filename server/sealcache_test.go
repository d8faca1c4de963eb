package server

import (
	"context"
	"testing"
	"time"

	"einvoice/signing"
)

// A seal is parsed once while it is kept, parsed again when another replaces it (as the admin
// commands do from another process, through the store), and no longer used once deleted.
func TestSealParsedOnceUntilReplaced(t *testing.T) {
	env := newDocEnv(t)
	ctx := context.Background()
	env.giveSeal(issuerSeal())
	first, err := env.srv.sealFor(ctx, env.entity)
	if err != nil || first == nil {
		t.Fatalf("seal: %v %v", first, err)
	}
	again, err := env.srv.sealFor(ctx, env.entity)
	if err != nil || again != first {
		t.Fatalf("the same stored seal was parsed again (%p, %p) or failed: %v", first, again, err)
	}

	now := time.Now()
	other, err := signing.SelfSignedSeal("Fornecedor", "508025338", now.Add(-time.Hour), now.AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	env.giveSeal(other)
	replaced, err := env.srv.sealFor(ctx, env.entity)
	if err != nil || replaced == first || !replaced.Certificate.Equal(other.Certificate) {
		t.Fatalf("after the seal was replaced: %v, err %v", replaced, err)
	}

	if err := env.srv.DeleteSeal(ctx, env.entity.ID); err != nil {
		t.Fatal(err)
	}
	env.entity, _ = env.st.EntityByID(ctx, env.entity.ID)
	if gone, err := env.srv.sealFor(ctx, env.entity); err != nil || gone != nil {
		t.Fatalf("after the seal was deleted: %v, err %v", gone, err)
	}
}
