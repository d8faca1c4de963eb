package server

import (
	"context"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"einvoice/server/edi/upstream"
	"einvoice/store"

	"github.com/labstack/echo/v4"
)

// TokenRequest is a request for an access token (spec 5.1): the client-credentials grant, signed with
// the client's secret. Scope, when set, narrows the client's scopes. Address is the client address it
// came from, against which failures are counted.
type TokenRequest struct {
	GrantType string
	ClientID  string
	Timestamp string
	Nonce     string
	Signature string
	Scope     string
	Address   string
}

// Token is an issued access token.
type Token struct {
	AccessToken string
	TTL         time.Duration
	Scopes      []string
}

// IssueToken checks a signed token request and issues an access token: the timestamp within the
// allowed skew, the signature by the client's secret (compared in constant time, an unknown client
// taking as long as a known one), the nonce never used before within the window. Failed signatures are
// throttled by address and client id; issued tokens count against the client's rate limit.
func (w *Workflow) IssueToken(ctx context.Context, req TokenRequest) (Token, error) {
	now := w.now()
	if err := w.authFailures.check(ctx, req.Address, now); err != nil {
		return Token{}, err
	}
	ts, err := req.validate()
	if err != nil {
		return Token{}, err
	}
	if skew := now.Sub(time.Unix(ts, 0)); skew > w.cfg.Auth.TimestampSkew || -skew > w.cfg.Auth.TimestampSkew {
		return Token{}, fail(CodeStaleTimestamp)
	}
	client, secret, err := w.store.ClientSecret(ctx, req.ClientID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return Token{}, err
	}
	known := err == nil && !client.Disabled
	if !known {
		secret = []byte(store.RandomToken(16))
	}
	if !hmac.Equal([]byte(req.Signature), []byte(RequestSignature(req.ClientID, req.Timestamp, req.Nonce, secret))) || !known {
		return Token{}, w.authFailures.fail(ctx, fail(CodeBadCredentials), req.Address, req.ClientID, now)
	}
	if err := countRequest(ctx, w.limiter, strconv.FormatInt(client.ID, 10), now); err != nil {
		return Token{}, err
	}
	scopes := client.Scopes
	if req.Scope != "" {
		scopes = nil
		for _, sc := range strings.FieldsFunc(req.Scope, func(r rune) bool { return r == ',' || r == ' ' }) {
			if !slices.Contains(client.Scopes, sc) {
				return Token{}, fieldError("scope", CodeInvalidScope)
			}
			if !slices.Contains(scopes, sc) {
				scopes = append(scopes, sc)
			}
		}
	}
	if err := w.store.UseNonce(ctx, client.ID, req.Nonce, now.Add(-2*w.cfg.Auth.TimestampSkew)); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return Token{}, fail(CodeNonceReused)
		}
		return Token{}, err
	}
	token, _, err := w.store.IssueAccessToken(ctx, client.ID, scopes, w.cfg.Auth.AccessTokenTTL)
	if err != nil {
		return Token{}, err
	}
	return Token{AccessToken: token, TTL: w.cfg.Auth.AccessTokenTTL, Scopes: scopes}, nil
}

// RequestSignature is the token-request signature of spec 5.1: the HMAC-SHA256 of
// "client_id:timestamp:nonce" keyed by the client secret, written as lowercase hex, then Base64.
// The upstream connector signs its own token requests to brokers the same way, so the algorithm
// lives there, in the leaf.
func RequestSignature(clientID, timestamp, nonce string, secret []byte) string {
	return upstream.Signature(clientID, timestamp, nonce, string(secret))
}

// validate checks every field's presence and form and returns the timestamp.
func (r TokenRequest) validate() (int64, error) {
	errs := FieldErrors{}
	required := func(field, v string) bool {
		if v == "" {
			errs[field] = Problem{Code: CodeRequired}
		}
		return v != ""
	}
	if required("grant_type", r.GrantType) && r.GrantType != "client_credentials" {
		errs["grant_type"] = Problem{Code: CodeUnsupportedGrant}
	}
	required("client_id", r.ClientID)
	ts, tsErr := strconv.ParseInt(r.Timestamp, 10, 64)
	if required("timestamp", r.Timestamp) && tsErr != nil {
		errs["timestamp"] = Problem{Code: CodeInvalidValue}
	}
	if required("nonce", r.Nonce) && !validNonce(r.Nonce) {
		errs["nonce"] = Problem{Code: CodeInvalidValue}
	}
	required("signature", r.Signature)
	if len(errs) > 0 {
		return 0, errs
	}
	return ts, nil
}

// validNonce: alphanumeric, 1 to 20 characters.
func validNonce(n string) bool {
	if len(n) < 1 || len(n) > 20 {
		return false
	}
	for _, c := range n {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// Handshake is the legacy per-entity authentication of a platform token: its calls for the entity are
// accepted from now on. For an OAuth client there is nothing to record.
func (w *Workflow) Handshake(ctx context.Context, cred store.Credential, entityID int64) error {
	if cred.Kind != store.KindPlatform {
		return nil
	}
	return w.store.SetHandshake(ctx, cred.ID, entityID, true)
}

// RevokeHandshake undoes the handshake; the platform token's later calls for the entity get 401 until
// a new one.
func (w *Workflow) RevokeHandshake(ctx context.Context, cred store.Credential, entityID int64) error {
	if cred.Kind != store.KindPlatform {
		return nil
	}
	return w.store.SetHandshake(ctx, cred.ID, entityID, false)
}

// tokenBodyLimit bounds the body of a token request: a handful of short fields.
const tokenBodyLimit = 64 << 10

// tokenResponse is spec 2.1, without envelope.
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
	Scope       string `json:"scope"`
}

// issueToken is POST /oauth2/token.
func (s *Server) issueToken(c echo.Context) error {
	req, err := bindTokenRequest(c.Request())
	if err != nil {
		return err
	}
	req.Address = clientAddress(c)
	tok, err := s.IssueToken(c.Request().Context(), req)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, tokenResponse{AccessToken: tok.AccessToken, TokenType: "Bearer",
		ExpiresIn: int(tok.TTL / time.Second), Scope: strings.Join(tok.Scopes, ",")})
}

// tokenFields are the token request's fields in a JSON body; fields it does not name are ignored.
type tokenFields struct {
	GrantType tokenValue `json:"grant_type"`
	ClientID  tokenValue `json:"client_id"`
	Timestamp tokenValue `json:"timestamp"`
	Nonce     tokenValue `json:"nonce"`
	Signature tokenValue `json:"signature"`
	Scope     tokenValue `json:"scope"`
}

// tokenValue is a value of a token request exactly as signed: a string as sent, anything else (a
// number) as written.
type tokenValue string

func (v *tokenValue) UnmarshalJSON(b []byte) error {
	switch {
	case string(b) == "null":
		*v = ""
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = tokenValue(s)
	default:
		*v = tokenValue(b)
	}
	return nil
}

// bindTokenRequest reads the token request from a JSON or form body.
func bindTokenRequest(r *http.Request) (TokenRequest, error) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	if mt != mimeJSON {
		if err := r.ParseForm(); err != nil {
			return TokenRequest{}, bodyError(err)
		}
		f := r.PostForm
		return TokenRequest{GrantType: f.Get("grant_type"), ClientID: f.Get("client_id"), Timestamp: f.Get("timestamp"),
			Nonce: f.Get("nonce"), Signature: f.Get("signature"), Scope: f.Get("scope")}, nil
	}
	body, err := readBody(r)
	if err != nil {
		return TokenRequest{}, err
	}
	var f tokenFields
	if err := json.Unmarshal(body, &f); err != nil {
		return TokenRequest{}, fieldError("body", CodeBadRequest)
	}
	return TokenRequest{GrantType: string(f.GrantType), ClientID: string(f.ClientID), Timestamp: string(f.Timestamp),
		Nonce: string(f.Nonce), Signature: string(f.Signature), Scope: string(f.Scope)}, nil
}

// handshake is POST /apps/authentications.
func (s *Server) handshake(c echo.Context) error {
	if err := s.Handshake(c.Request().Context(), actingCredential(c), actingEntity(c).ID); err != nil {
		return err
	}
	return respond(c, CodeHandshakeDone, nil)
}

// revokeHandshake is DELETE /apps/authentications.
func (s *Server) revokeHandshake(c echo.Context) error {
	if err := s.RevokeHandshake(c.Request().Context(), actingCredential(c), actingEntity(c).ID); err != nil {
		return err
	}
	return respond(c, CodeHandshakeRevoked, nil)
}
