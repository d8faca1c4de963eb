package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"einvoice/store"

	"github.com/labstack/echo/v4"
)

// tokenRequest is the body of POST /oauth2/token.
type tokenRequest struct {
	GrantType string
	ClientID  string
	Timestamp string
	Nonce     string
	Signature string
	Scope     string // optional: a subset of the client's scopes
}

// tokenResponse is spec 2.1, without envelope.
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
	Scope       string `json:"scope"`
}

// issueToken is the OAuth 2.0 client-credentials grant with the signed request of spec 5.1.
func (s *Server) issueToken(c echo.Context) error {
	req, err := bindTokenRequest(c.Request())
	if err != nil {
		return err
	}
	ts, err := req.validate()
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	now := s.now()
	if skew := now.Sub(time.Unix(ts, 0)); skew > s.cfg.Auth.TimestampSkew || -skew > s.cfg.Auth.TimestampSkew {
		return fail(CodeStaleTimestamp)
	}
	client, secret, err := s.store.ClientSecret(ctx, req.ClientID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	// An unknown client is checked against a throw-away secret so that it takes as long as a known one.
	known := err == nil && !client.Disabled
	if !known {
		secret = []byte(store.RandomToken(16))
	}
	if !hmac.Equal([]byte(req.Signature), []byte(RequestSignature(req.ClientID, req.Timestamp, req.Nonce, secret))) || !known {
		return fail(CodeBadCredentials)
	}
	if wait, ok := s.limiter.allow(client.ID, now); !ok {
		return rateLimited(wait)
	}
	scopes := client.Scopes
	if req.Scope != "" {
		scopes = nil
		for _, sc := range strings.FieldsFunc(req.Scope, func(r rune) bool { return r == ',' || r == ' ' }) {
			if !slices.Contains(client.Scopes, sc) {
				return fieldError("scope", CodeInvalidScope)
			}
			if !slices.Contains(scopes, sc) {
				scopes = append(scopes, sc)
			}
		}
	}
	if err := s.store.UseNonce(ctx, client.ID, req.Nonce, now.Add(-2*s.cfg.Auth.TimestampSkew)); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return fail(CodeNonceReused)
		}
		return err
	}
	token, _, err := s.store.IssueAccessToken(ctx, client.ID, scopes, s.cfg.Auth.AccessTokenTTL)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, tokenResponse{
		AccessToken: token, TokenType: "Bearer",
		ExpiresIn: int(s.cfg.Auth.AccessTokenTTL / time.Second), Scope: strings.Join(scopes, ","),
	})
}

// RequestSignature is the token-request signature of spec 5.1: the HMAC-SHA256 of
// "client_id:timestamp:nonce" keyed by the client secret, written as lowercase hex, then Base64.
func RequestSignature(clientID, timestamp, nonce string, secret []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(clientID + ":" + timestamp + ":" + nonce))
	return base64.StdEncoding.EncodeToString([]byte(hex.EncodeToString(mac.Sum(nil))))
}

// bindTokenRequest reads the token request from a JSON or form body.
func bindTokenRequest(r *http.Request) (tokenRequest, error) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	if mt != mimeJSON {
		if err := r.ParseForm(); err != nil {
			return tokenRequest{}, bodyError(err)
		}
		f := r.PostForm
		return tokenRequest{f.Get("grant_type"), f.Get("client_id"), f.Get("timestamp"), f.Get("nonce"), f.Get("signature"), f.Get("scope")}, nil
	}
	var body map[string]any
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		return tokenRequest{}, bodyError(err)
	}
	str := func(k string) string {
		switch v := body[k].(type) {
		case string:
			return v
		case json.Number:
			return v.String()
		case nil:
			return ""
		default:
			return fmt.Sprint(v)
		}
	}
	return tokenRequest{str("grant_type"), str("client_id"), str("timestamp"), str("nonce"), str("signature"), str("scope")}, nil
}

// bodyError is a 413 for an over-long body and a 400 for one that cannot be read.
func bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return fail(CodeBodyTooLarge)
	}
	return fieldError("body", CodeBadRequest)
}

// validate checks every field's presence and form and returns the timestamp.
func (r tokenRequest) validate() (int64, error) {
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

// handshake is the legacy per-entity authentication (POST /apps/authentications). For an OAuth client
// it only confirms that the client may act for the entity.
func (s *Server) handshake(c echo.Context) error {
	cred := actingCredential(c)
	if cred.Kind == store.KindPlatform {
		if err := s.store.SetHandshake(c.Request().Context(), cred.ID, actingEntity(c).ID, true); err != nil {
			return err
		}
	}
	return respond(c, CodeHandshakeDone, nil)
}

// revokeHandshake undoes the legacy handshake (DELETE /apps/authentications); later calls for the entity
// get 401 until a new handshake.
func (s *Server) revokeHandshake(c echo.Context) error {
	cred := actingCredential(c)
	if cred.Kind == store.KindPlatform {
		if err := s.store.SetHandshake(c.Request().Context(), cred.ID, actingEntity(c).ID, false); err != nil {
			return err
		}
	}
	return respond(c, CodeHandshakeRevoked, nil)
}
