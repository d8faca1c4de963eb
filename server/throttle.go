package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"einvoice/store"

	"github.com/labstack/echo/v4"
)

// Failed authentication is throttled. A bad token-request signature, an unknown client id, an unknown
// or expired bearer token and an unknown platform token each count as one failure of the client
// address, and a bad signature also as one of the client id it names. Past [security]
// failed_auth_per_minute failures within a minute, the address is refused every authentication (429
// e368, Retry-After) for a minute. A client id past the limit has its failing requests answered 429
// too, but a correctly signed request for it still gets its token: the legitimate client, calling from
// another address, is never locked out by someone guessing its secret.

// authThrottle holds the failure counts by client address and by client id (counters, so that on a
// shared database every process refuses an address past the limit, wherever its failures happened).
type authThrottle struct {
	byAddress counter
	byClient  counter
}

// newAuthThrottle allows limit failures per window, by address and by client (a client id, or a
// portal username); a key past it is refused for a window. name keeps its keys apart in the database.
func newAuthThrottle(st *store.Store, name string, limit int, window time.Duration) authThrottle {
	return authThrottle{byAddress: newCounter(st, name+"-address", limit, window, window),
		byClient: newCounter(st, name+"-client", limit, window, window)}
}

// check refuses an address past its limit.
func (t authThrottle) check(ctx context.Context, address string, now time.Time) error {
	wait, refused, err := t.byAddress.blocked(ctx, address, now)
	if err != nil {
		return err
	}
	if refused {
		return retryLater(CodeAuthThrottled, wait)
	}
	return nil
}

// fail counts a failed authentication from address (and for clientID, when one was named) and
// returns what to answer: failure itself, or 429 once either is past its limit.
func (t authThrottle) fail(ctx context.Context, failure error, address, clientID string, now time.Time) error {
	wait, ok, err := t.byAddress.allow(ctx, address, now)
	if err != nil {
		return err
	}
	if clientID != "" {
		w, clientOK, err := t.byClient.allow(ctx, clip(clientID, 128), now)
		if err != nil {
			return err
		}
		if !clientOK {
			wait, ok = max(wait, w), false
		}
	}
	if !ok {
		return retryLater(CodeAuthThrottled, wait)
	}
	return failure
}

// retryLater is the code's error with a Retry-After of wait, in whole seconds.
func retryLater(code *Code, wait time.Duration) error {
	secs := int((wait + time.Second - 1) / time.Second)
	return &apiError{code: code, header: http.Header{"Retry-After": {fmt.Sprint(secs)}}}
}

// keyClientAddress holds the request's client address in the Echo context.
const keyClientAddress = "client_address"

// clientAddress is the address the request came from, as resolveClient found it.
func clientAddress(c echo.Context) string {
	if a, ok := c.Get(keyClientAddress).(string); ok {
		return a
	}
	return c.Request().RemoteAddr
}

// ParseTrustedProxies reads [server] trusted_proxies: addresses ("10.0.0.1") and networks
// ("10.0.0.0/8", "fd00::/8").
func ParseTrustedProxies(list []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(list))
	for _, s := range list {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address nor a network", s)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// resolveClient records each request's client address: the TCP peer; or, when the peer is a trusted
// proxy, the nearest address in X-Forwarded-For that is not one. X-Forwarded-For is ignored unless
// trusted_proxies names the peer. An IPv6 client counts by its /64 network, the block one subscriber
// usually holds.
func resolveClient(trusted []netip.Prefix) echo.MiddlewareFunc {
	trusts := func(a netip.Addr) bool {
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			host, _, err := net.SplitHostPort(r.RemoteAddr)
			if err != nil {
				host = r.RemoteAddr
			}
			addr, err := netip.ParseAddr(host)
			if err != nil {
				c.Set(keyClientAddress, host)
				return next(c)
			}
			addr = addr.Unmap()
			if len(trusted) > 0 && trusts(addr) {
				hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
				for i := len(hops) - 1; i >= 0 && trusts(addr); i-- {
					hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
					if err != nil {
						break
					}
					addr = hop.Unmap()
				}
			}
			if addr.Is6() {
				c.Set(keyClientAddress, netip.PrefixFrom(addr, 64).Masked().String())
			} else {
				c.Set(keyClientAddress, addr.String())
			}
			return next(c)
		}
	}
}
