package signing

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSelfSignedSealNamesItsOrganisation(t *testing.T) {
	now := time.Now()
	seal, err := SelfSignedSeal("Empresa, Lda.", "508025338", now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if id := seal.OrganisationID(); id != "VATPT-508025338" {
		t.Fatalf("organisation %q", id)
	}
	if name := DisplayName(seal.Certificate.Subject); !strings.Contains(name, "organizationIdentifier=VATPT-508025338") || !strings.Contains(name, `O=Empresa\, Lda.`) {
		t.Fatalf("display name %q", name)
	}
	if err := seal.ValidAt(now.Add(2 * time.Hour)); !errors.Is(err, ErrSealExpired) {
		t.Fatalf("after its end: %v", err)
	}
	if err := seal.ValidAt(now.Add(-2 * time.Hour)); !errors.Is(err, ErrSealNotYetValid) {
		t.Fatalf("before its start: %v", err)
	}
	// Kept and read back, the seal still signs.
	key, chain, err := seal.Export()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseSeal(key, chain)
	if err != nil || !back.Certificate.Equal(seal.Certificate) {
		t.Fatalf("read back: %v", err)
	}
	if _, err := ParseSeal(key, [][]byte{pki().seal.Certificate.Raw}); !errors.Is(err, ErrKeyMismatch) {
		t.Fatalf("another certificate: %v", err)
	}
}
