package dissect

import "time"

// Time returns the exchange's time, the JSON Lines contract's "ts": the
// capture time of the request's first byte; without a request, the
// response's; for the exchange that stands for a TLS connection not
// decrypted, its ClientHello's.
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
