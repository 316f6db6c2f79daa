package client

// BrokerRange returns the versions of key the broker advertised in its
// ApiVersions answer when the connection opened; ok is false when it did
// not list the key, or when the connection skipped the negotiation
// (Config.NoVersionNegotiation). Replay uses it to pick the version
// nearest to a captured one, which Version (the highest in common) does
// not give.
func (c *Conn) BrokerRange(key int16) (minVersion, maxVersion int16, ok bool) {
	r, ok := c.broker[key]
	if !ok {
		return -1, -1, false
	}
	return r.min, r.max, true
}
