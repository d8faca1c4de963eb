package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"einvoice/signing"
	"einvoice/store"
)

// DemoCredentialsFile is written into the data folder by `serve --demo`.
const DemoCredentialsFile = "demo-credentials.json"

// The two test entities of a demo installation (valid Portuguese NIFs).
var demoEntities = []store.NewEntity{
	{Name: "Demo Fornecedor, Lda.", Country: "PT", NIF: "508025338", TestEntity: true, Transactions: 1000},
	{Name: "Demo Cliente, S.A.", Country: "PT", NIF: "500000000", TestEntity: true, Transactions: 1000},
}

// demoProfiles are the company profiles of the test entities (in the order of demoEntities): complete,
// so that the incumbent's data-method payloads, which leave the supplier's address out, issue as
// they are.
var demoProfiles = []store.Profile{
	{Street: "Rua Augusta", BuildingNumber: "100", PostalZone: "1100-053", City: "Lisboa", Region: "Lisboa", Country: "PT",
		ShareCapital: "5.000,00 EUR", LegalForm: "Sociedade por quotas", Email: "faturacao@fornecedor.example",
		Telephone: "+351 210 000 100", IBAN: "PT50000201231234567890154", GLN: "5601234000016"},
	{Street: "Avenida da Liberdade", BuildingNumber: "200", PostalZone: "1250-147", City: "Lisboa", Region: "Lisboa", Country: "PT",
		ShareCapital: "50.000,00 EUR", LegalForm: "Sociedade anónima", Email: "faturas@cliente.example",
		Telephone: "+351 210 000 200", IBAN: "PT72003500000012345678901", GLN: "5607654000025"},
}

// DemoCredentials is what an integrator needs to call a demo installation.
type DemoCredentials struct {
	APIBase       string       `json:"api_base"`
	ClientID      string       `json:"client_id"`
	ClientSecret  string       `json:"client_secret"`
	PlatformToken string       `json:"platform_token"`
	Entities      []DemoEntity `json:"entities"`
	Portal        DemoPortal   `json:"portal"`
}

// DemoPortal is where the demo's portal is and who can sign in to it.
type DemoPortal struct {
	URL   string     `json:"url"`
	Users []DemoUser `json:"users"`
}

// DemoUser is a portal user of the demo: an administrator of each test entity, and a support user
// (EntityNIF null).
type DemoUser struct {
	Username  string  `json:"username"`
	Password  string  `json:"password"`
	Role      string  `json:"role"`
	EntityNIF *string `json:"entity_nif"`
}

// DemoEntity is one test entity in the credentials file.
type DemoEntity struct {
	Name      string `json:"name"`
	NIF       string `json:"nif"`
	Country   string `json:"country"`
	PublicKey string `json:"public_key"`
}

// demoState is what the installation remembers of its demo set-up.
type demoState struct {
	ClientID        string `json:"client_id"`
	PlatformTokenID int64  `json:"platform_token_id"`
}

const demoSettingKey = "demo"

// EnsureDemo sets up the demo installation on first start (two test entities, the first with a
// self-signed seal, an OAuth client and a legacy platform token authorised for both, an approved
// connection between them) and keeps what
// exists on later starts. It writes the credentials to <dataDir>/demo-credentials.json and returns them.
func EnsureDemo(ctx context.Context, st *store.Store, dataDir, apiBase string) (DemoCredentials, error) {
	creds := DemoCredentials{APIBase: apiBase}
	var entities []store.Entity
	for _, n := range demoEntities {
		e, err := st.EntityByNIF(ctx, n.Country, n.NIF)
		if errors.Is(err, store.ErrNotFound) {
			e, err = st.CreateEntity(ctx, n)
		}
		if err != nil {
			return creds, fmt.Errorf("demo entity %s: %w", n.NIF, err)
		}
		if !e.TestEntity {
			yes := true
			if e, err = st.UpdateEntity(ctx, e.ID, store.EntityChanges{TestEntity: &yes}); err != nil {
				return creds, err
			}
		}
		if err := ensureDemoProfile(ctx, st, e, demoProfiles[len(entities)]); err != nil {
			return creds, err
		}
		entities = append(entities, e)
		creds.Entities = append(creds.Entities, DemoEntity{e.Name, e.NIF, e.Country, e.PublicKey})
	}
	if err := ensureDemoSeal(ctx, st, entities[0]); err != nil {
		return creds, err
	}
	if _, err := st.CreateConnection(ctx, store.NewConnection{
		FromEntityID: entities[0].ID, ToEntityID: entities[1].ID, State: store.ConnApproved, Person: "demo",
	}); err != nil && !errors.Is(err, store.ErrConflict) {
		return creds, err
	}

	var state demoState
	if raw, err := st.Setting(ctx, demoSettingKey); err == nil {
		if err := json.Unmarshal([]byte(raw), &state); err != nil {
			return creds, fmt.Errorf("demo setting: %w", err)
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		return creds, err
	}

	client, secret, err := st.ClientSecret(ctx, state.ClientID)
	if errors.Is(err, store.ErrNotFound) || err == nil && client.Disabled {
		var s string
		client, s, err = st.CreateClient(ctx, "demo", AllScopes)
		secret = []byte(s)
	}
	if err != nil {
		return creds, err
	}
	creds.ClientID, creds.ClientSecret = client.ClientID, string(secret)

	// The platform token is kept only as a hash: reuse the one in the credentials file while it is valid.
	previous, _ := ReadDemoCredentials(dataDir)
	token, err := st.CredentialByPlatformToken(ctx, previous.PlatformToken)
	if err != nil || token.Disabled || token.ID != state.PlatformTokenID {
		if state.PlatformTokenID != 0 {
			if err := st.DisableCredential(ctx, state.PlatformTokenID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return creds, err
			}
		}
		token, previous.PlatformToken, err = st.CreatePlatformToken(ctx, "demo", AllScopes)
		if err != nil {
			return creds, err
		}
	}
	creds.PlatformToken = previous.PlatformToken

	for _, e := range entities {
		for _, credID := range []int64{client.ID, token.ID} {
			if err := st.Authorize(ctx, credID, e.ID); err != nil {
				return creds, err
			}
		}
	}
	creds.Portal = DemoPortal{URL: strings.TrimSuffix(apiBase, "/api/v1/pt") + "/portal/"}
	if creds.Portal.Users, err = ensureDemoUsers(ctx, st, entities, previous.Portal.Users); err != nil {
		return creds, err
	}

	raw, _ := json.Marshal(demoState{ClientID: client.ClientID, PlatformTokenID: token.ID})
	if err := st.SetSetting(ctx, demoSettingKey, string(raw)); err != nil {
		return creds, err
	}
	out, _ := json.MarshalIndent(creds, "", "  ")
	return creds, os.WriteFile(filepath.Join(dataDir, DemoCredentialsFile), append(out, '\n'), 0o600)
}

// ensureDemoProfile gives a test entity its company profile when it has none; one changed in the
// portal stays.
func ensureDemoProfile(ctx context.Context, st *store.Store, e store.Entity, p store.Profile) error {
	current, err := st.ProfileOf(ctx, e.ID)
	if err != nil || current.UpdatedAt != "" {
		return err
	}
	_, err = st.SaveProfile(ctx, e.ID, e.Name, p)
	return err
}

// ensureDemoSeal gives the demo supplier a self-signed seal (two years) when it has none, so that a
// demo installation shows signed XML and PDFs; an administrator can replace it with `admin seal import`.
func ensureDemoSeal(ctx context.Context, st *store.Store, e store.Entity) error {
	if _, err := st.SealOf(ctx, e.ID); !errors.Is(err, store.ErrNotFound) {
		return err
	}
	now := time.Now()
	seal, err := signing.SelfSignedSeal(e.Name, e.NIF, now.Add(-time.Hour), now.AddDate(2, 0, 0))
	if err != nil {
		return err
	}
	return KeepSeal(ctx, st, e.ID, seal)
}

// demoUsernames are the demo's portal users: one per test entity, then the support user.
var demoUsernames = []string{"fornecedor", "cliente", "suporte"}

// ensureDemoUsers makes the demo's portal users. A password is kept only as a hash, so the one in the
// previous credentials file is kept while it still signs in; otherwise a new one is set.
func ensureDemoUsers(ctx context.Context, st *store.Store, entities []store.Entity, previous []DemoUser) ([]DemoUser, error) {
	known := map[string]string{}
	for _, u := range previous {
		known[u.Username] = u.Password
	}
	var out []DemoUser
	for i, name := range demoUsernames {
		du := DemoUser{Username: name, Password: known[name], Role: RoleSupport}
		if i < len(entities) {
			nif := entities[i].NIF
			du.Role, du.EntityNIF = store.RoleAdmin, &nif
		}
		u, hash, err := st.UserByUsername(ctx, name)
		switch {
		case errors.Is(err, store.ErrNotFound):
			du.Password = store.RandomToken(8)
			u, err = st.CreateUser(ctx, store.NewUser{Username: name, PasswordHash: store.HashPassword(du.Password), Support: du.EntityNIF == nil})
		case err == nil:
			if ok, _ := store.CheckPassword(hash, du.Password); !ok || du.Password == "" {
				du.Password = store.RandomToken(8)
				err = st.SetPasswordHash(ctx, u.ID, store.HashPassword(du.Password), 0)
			}
			if err == nil && u.Disabled {
				err = st.SetUserDisabled(ctx, u.ID, false)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("demo user %s: %w", name, err)
		}
		if du.EntityNIF != nil {
			if err := st.SetMembership(ctx, u.ID, entities[i].ID, store.RoleAdmin); err != nil {
				return nil, err
			}
		}
		out = append(out, du)
	}
	return out, nil
}

// ReadDemoCredentials reads the credentials file of a demo installation.
func ReadDemoCredentials(dataDir string) (DemoCredentials, error) {
	var c DemoCredentials
	b, err := os.ReadFile(filepath.Join(dataDir, DemoCredentialsFile))
	if err != nil {
		return c, err
	}
	return c, json.Unmarshal(b, &c)
}
