package dissect

import "time"

// Time is the capture time an exchange is placed at, as the JSON Lines
// "ts" key gives it: its request's first byte; its response's when the
// request was not captured; the ClientHello's for a TLS connection not
// decrypted (an exchange of neither frame). Zero when it has none of them.
func (e *Exchange) Time() time.Time {
	switch {
	case e.Request != nil:
		return e.Request.Time
	case e.Response != nil:
		return e.Response.Time
	case e.TLS != nil:
		return e.TLS.Time
	}
	return time.Time{}
}
