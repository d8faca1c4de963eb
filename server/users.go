package server

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"einvoice/store"
)

// Portal users and their sessions. A user belongs to entities with a role there (admin, operator,
// viewer), or is a support user who sees every entity. Sessions are random tokens the browser keeps in a
// cookie; the database keeps their hashes. Failed sign-ins are throttled per username and per address.

// PortalConfig is the [portal] section.
type PortalConfig struct {
	SessionTTL        time.Duration `toml:"session_ttl"`         // idle time after which a session ends
	LoginFailures     int           `toml:"login_failures"`      // failed sign-ins allowed per window, per username and per address
	LoginFailureReset time.Duration `toml:"login_failure_reset"` // the window
}

// DefaultPortal is the default [portal] section.
func DefaultPortal() PortalConfig {
	return PortalConfig{SessionTTL: 12 * time.Hour, LoginFailures: 10, LoginFailureReset: 15 * time.Minute}
}

// RoleSupport is the role of the support team's users: every entity, and the support console.
const RoleSupport = "support"

// UserRoles are the roles a user can be given, in the order the help lists them.
var UserRoles = []string{store.RoleAdmin, store.RoleOperator, store.RoleViewer, RoleSupport}

// MinPasswordLen is the shortest password accepted.
const MinPasswordLen = 10

// NewUser is what creating a portal user takes. EntityID is required for every role but support.
type NewUser struct {
	Username string
	Password string
	Role     string
	EntityID int64
}

var usernamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._@-]{1,63}$`)

// CreateUser adds a portal user, or gives an existing user a role at one more entity when the password
// is empty.
func (w *Workflow) CreateUser(ctx context.Context, n NewUser) (store.User, error) {
	n.Username = strings.ToLower(strings.TrimSpace(n.Username))
	problems := FieldErrors{}
	if !usernamePattern.MatchString(n.Username) {
		problems["username"] = Problem{Code: CodeInvalidValue}
	}
	if err := checkPassword(n.Password); err != nil {
		problems["password"] = Problem{Code: CodeWeakPassword}
	}
	switch {
	case n.Role == RoleSupport:
	case n.Role == store.RoleAdmin || n.Role == store.RoleOperator || n.Role == store.RoleViewer:
		if n.EntityID == 0 {
			problems["entity"] = Problem{Code: CodeRequired}
		} else if _, err := w.store.EntityByID(ctx, n.EntityID); errors.Is(err, store.ErrNotFound) {
			problems["entity"] = Problem{Code: CodeNotFound}
		}
	default:
		problems["role"] = Problem{Code: CodeInvalidValue}
	}
	if len(problems) > 0 {
		return store.User{}, problems
	}
	u, err := w.store.CreateUser(ctx, store.NewUser{Username: n.Username, PasswordHash: store.HashPassword(n.Password),
		Support: n.Role == RoleSupport})
	if errors.Is(err, store.ErrConflict) {
		return store.User{}, fieldError("username", CodeUsernameTaken)
	}
	if err != nil {
		return u, err
	}
	if n.Role == RoleSupport {
		return u, w.audit(ctx, "user.create", u.Username, "role", n.Role)
	}
	if err := w.store.SetMembership(ctx, u.ID, n.EntityID, n.Role); err != nil {
		return store.User{}, err
	}
	if err := w.audit(ctx, "user.create", u.Username, "role", n.Role, "entity", w.entitySubject(ctx, n.EntityID)); err != nil {
		return store.User{}, err
	}
	return w.store.UserByID(ctx, u.ID)
}

// GrantRole gives a user a role at an entity (replacing the one it had there).
func (w *Workflow) GrantRole(ctx context.Context, username string, entityID int64, role string) (store.User, error) {
	if role != store.RoleAdmin && role != store.RoleOperator && role != store.RoleViewer {
		return store.User{}, fieldError("role", CodeInvalidValue)
	}
	u, err := w.user(ctx, username)
	if err != nil {
		return store.User{}, err
	}
	if u.Support {
		return store.User{}, fieldError("role", CodeInvalidValue)
	}
	if _, err := w.store.EntityByID(ctx, entityID); errors.Is(err, store.ErrNotFound) {
		return store.User{}, fieldError("entity", CodeNotFound)
	}
	if err := w.store.SetMembership(ctx, u.ID, entityID, role); err != nil {
		return store.User{}, err
	}
	if err := w.audit(ctx, "user.grant", u.Username, "role", role, "entity", w.entitySubject(ctx, entityID)); err != nil {
		return store.User{}, err
	}
	return w.store.UserByID(ctx, u.ID)
}

func checkPassword(p string) error {
	if utf8.RuneCountInString(p) < MinPasswordLen || len(p) > 1024 {
		return errors.New("weak password")
	}
	return nil
}

// user finds a user by username; a FieldErrors on username when there is none.
func (w *Workflow) user(ctx context.Context, username string) (store.User, error) {
	u, _, err := w.store.UserByUsername(ctx, strings.ToLower(strings.TrimSpace(username)))
	if errors.Is(err, store.ErrNotFound) {
		return store.User{}, fieldError("username", CodeNotFound)
	}
	return u, err
}

// Users lists every portal user.
func (w *Workflow) Users(ctx context.Context) ([]store.User, error) { return w.store.Users(ctx) }

// SetUserDisabled disables a user (ending its sessions) or enables it again.
func (w *Workflow) SetUserDisabled(ctx context.Context, username string, disabled bool) (store.User, error) {
	u, err := w.user(ctx, username)
	if err != nil {
		return store.User{}, err
	}
	if err := w.store.SetUserDisabled(ctx, u.ID, disabled); err != nil {
		return store.User{}, err
	}
	u.Disabled = disabled
	action := "user.enable"
	if disabled {
		action = "user.disable"
	}
	return u, w.audit(ctx, action, u.Username)
}

// ResetPassword sets a user's password (the support team's reset) and ends all its sessions.
func (w *Workflow) ResetPassword(ctx context.Context, username, password string) error {
	if err := checkPassword(password); err != nil {
		return fieldError("password", CodeWeakPassword)
	}
	u, err := w.user(ctx, username)
	if err != nil {
		return err
	}
	if err := w.store.SetPasswordHash(ctx, u.ID, store.HashPassword(password), 0); err != nil {
		return err
	}
	return w.audit(ctx, "user.reset_password", u.Username)
}

// ChangePassword is a user changing its own password: the current one must match. The session it is
// made from stays; every other one ends.
func (w *Workflow) ChangePassword(ctx context.Context, userID, sessionID int64, current, next string) error {
	hash, err := w.store.PasswordHash(ctx, userID)
	if err != nil {
		return err
	}
	if ok, err := store.CheckPassword(hash, current); err != nil || !ok {
		return fieldError("current", CodeWrongPassword)
	}
	if err := checkPassword(next); err != nil {
		return fieldError("password", CodeWeakPassword)
	}
	return w.store.SetPasswordHash(ctx, userID, store.HashPassword(next), sessionID)
}

// Login is a sign-in attempt.
type Login struct {
	Username, Password string
	Address            string // the client's address, for throttling and the session list
	UserAgent          string
}

// PortalSession is a signed-in session: Token goes in the cookie and is never stored.
type PortalSession struct {
	Token   string
	Session store.Session
	User    store.User
}

// Login checks a username and password and opens a session. A wrong username, a wrong password and a
// disabled user are one and the same error, and cost the same time. Failures are counted as the API's
// failed authentications are: an address past the limit is refused (429 with Retry-After), and so are
// the failing attempts for a username past it, while its right password still signs in.
func (w *Workflow) Login(ctx context.Context, l Login) (PortalSession, error) {
	username := strings.ToLower(strings.TrimSpace(l.Username))
	if err := w.logins.check(ctx, l.Address, w.now()); err != nil {
		return PortalSession{}, err
	}
	u, hash, err := w.store.UserByUsername(ctx, username)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return PortalSession{}, err
	}
	if hash == "" {
		hash = dummyPasswordHash()
	}
	ok, _ := store.CheckPassword(hash, l.Password)
	if !ok || err != nil || u.Disabled {
		return PortalSession{}, w.logins.fail(ctx, fieldError("password", CodeLoginFailed), l.Address, username, w.now())
	}
	token := store.RandomToken(32)
	ss, err := w.store.CreateSession(ctx, store.HashToken(token), u.ID, w.now().Add(w.cfg.Portal.SessionTTL),
		truncate(l.UserAgent, 200), truncate(l.Address, 100))
	if err != nil {
		return PortalSession{}, err
	}
	return PortalSession{Token: token, Session: ss, User: u}, nil
}

// dummyPasswordHash is checked against when the username is unknown, so that the answer takes as
// long as for a known one.
var dummyPasswordHash = sync.OnceValue(func() string { return store.HashPassword(store.RandomToken(16)) })

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// SessionUser finds the live session of a cookie's token and its user; store.ErrNotFound when there is
// none, it expired, or the user is disabled. Using a session moves its expiry (at most once a minute).
func (w *Workflow) SessionUser(ctx context.Context, token string) (store.Session, store.User, error) {
	if token == "" || len(token) > 128 {
		return store.Session{}, store.User{}, store.ErrNotFound
	}
	now := w.now()
	ss, err := w.store.SessionByTokenHash(ctx, store.HashToken(token), now)
	if err != nil {
		return store.Session{}, store.User{}, err
	}
	u, err := w.store.UserByID(ctx, ss.UserID)
	if err != nil {
		return store.Session{}, store.User{}, err
	}
	if u.Disabled {
		return store.Session{}, store.User{}, store.ErrNotFound
	}
	if next := now.Add(w.cfg.Portal.SessionTTL); next.Sub(ss.ExpiresAt) > time.Minute {
		if err := w.store.TouchSession(ctx, ss.ID, next); err != nil {
			return store.Session{}, store.User{}, err
		}
		ss.ExpiresAt = next
	}
	return ss, u, nil
}

// Sessions lists a user's live sessions.
func (w *Workflow) Sessions(ctx context.Context, userID int64) ([]store.Session, error) {
	return w.store.SessionsOfUser(ctx, userID, w.now())
}

// EndSession ends one of a user's own sessions (logout, or revoking another browser).
func (w *Workflow) EndSession(ctx context.Context, userID, sessionID int64) error {
	err := w.store.DeleteSession(ctx, userID, sessionID)
	if errors.Is(err, store.ErrNotFound) {
		return fail(CodeNotFound)
	}
	return err
}
