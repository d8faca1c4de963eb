package server

import (
	"context"
	"net/url"

	"einvoice/server/edi/upstream"
	"einvoice/store"
)

// Upstream brokers, configured by the support team: services offering this same API that entities
// here forward their documents to (see server/edi/upstream).

// CreateUpstream records an upstream broker: a unique name (what connections name), its API's base
// URL (up to /api/v1/<lang>), the platform OAuth client there and the entity's public key there.
func (w *Workflow) CreateUpstream(ctx context.Context, u store.Upstream) (store.Upstream, error) {
	errs := FieldErrors{}
	requiredText(errs, "name", &u.Name, maxNameLength)
	requiredText(errs, "base_url", &u.BaseURL, maxURLLength)
	if _, bad := errs["base_url"]; !bad {
		if p, err := url.Parse(u.BaseURL); err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
			errs["base_url"] = Problem{Code: CodeInvalidValue}
		}
	}
	requiredText(errs, "client_id", &u.ClientID, maxNameLength)
	requiredText(errs, "secret", &u.Secret, maxWebhookKey)
	requiredText(errs, "public_key", &u.PublicKey, maxWebhookKey)
	if err := errs.orNil(); err != nil {
		return store.Upstream{}, err
	}
	created, err := w.store.CreateUpstream(ctx, u)
	if err != nil {
		return created, asExists(err)
	}
	return created, w.audit(ctx, "upstream.create", created.Name, "base_url", created.BaseURL, "client_id", created.ClientID)
}

// DeleteUpstream removes an upstream broker; connections that name it wait until it exists again.
func (w *Workflow) DeleteUpstream(ctx context.Context, name string) error {
	if name == "" {
		return fieldError("name", CodeRequired)
	}
	if err := w.store.DeleteUpstream(ctx, name); err != nil {
		return asNotFound(err)
	}
	return w.audit(ctx, "upstream.delete", name)
}

// Upstreams lists the upstream brokers (their secrets stay in the store).
func (w *Workflow) Upstreams(ctx context.Context) ([]store.Upstream, error) {
	return w.store.Upstreams(ctx)
}

// upstreamConfig is what the upstream connector needs of an upstream broker.
func (w *Workflow) upstreamConfig(ctx context.Context, name string) (upstream.Config, error) {
	u, err := w.store.UpstreamByName(ctx, name)
	if err != nil {
		return upstream.Config{}, err
	}
	return upstream.Config{BaseURL: u.BaseURL, ClientID: u.ClientID, Secret: u.Secret, PublicKey: u.PublicKey}, nil
}
