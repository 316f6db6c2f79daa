package codec

// RequestHeaderVersion returns the request header version a request of the
// given ApiKey and ApiVersion uses: 2 for flexible versions, else 1, except
// ControlledShutdown v0 which uses header v0 (no ClientId).
func RequestHeaderVersion(apiKey, apiVersion int16) int16 {
	if apiKey == ApiKeyControlledShutdown && apiVersion == 0 {
		return 0
	}
	if a, ok := LookupAPI(apiKey); ok && a.IsFlexible(apiVersion) {
		return 2
	}
	return 1
}

// ResponseHeaderVersion returns the response header version of the response
// to a request of the given ApiKey and ApiVersion: 1 for flexible versions,
// else 0, except ApiVersions, whose response always uses header v0 so that a
// client can read it whatever version the broker answers with (KIP-511).
func ResponseHeaderVersion(apiKey, apiVersion int16) int16 {
	if apiKey == ApiKeyApiVersions {
		return 0
	}
	if a, ok := LookupAPI(apiKey); ok && a.IsFlexible(apiVersion) {
		return 1
	}
	return 0
}
