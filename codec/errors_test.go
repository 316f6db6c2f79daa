package codec

import (
	"math"
	"regexp"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestErrorKnownCodes(t *testing.T) {
	tests := []struct {
		code      int16
		name      string
		desc      string
		retriable bool
	}{
		{-1, "UNKNOWN_SERVER_ERROR", "The server experienced an unexpected error when processing the request.", false},
		{0, "NONE", "", false},
		{1, "OFFSET_OUT_OF_RANGE", "The requested offset is not within the range of offsets maintained by the server.", false},
		{3, "UNKNOWN_TOPIC_OR_PARTITION", "This server does not host this topic-partition.", true},
		{6, "NOT_LEADER_OR_FOLLOWER", "For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.", true},
		{8, "BROKER_NOT_AVAILABLE", "The broker is not available.", false},
		{25, "UNKNOWN_MEMBER_ID", "The coordinator is not aware of this member.", false},
		{35, "UNSUPPORTED_VERSION", "The version of API is not supported.", false},
		{51, "CONCURRENT_TRANSACTIONS", "The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing.", true},
		{133, "SHARE_SESSION_LIMIT_REACHED", "The limit of share sessions has been reached.", true},
		{136, "CONTROLLER_ID_NOT_REGISTERED", "The given controller ID was not registered.", false},
	}
	for _, tt := range tests {
		info, ok := LookupError(tt.code)
		if !ok {
			t.Errorf("LookupError(%d): ok = false, want true", tt.code)
			continue
		}
		want := ErrorInfo{Code: ErrorCode(tt.code), Name: tt.name, Description: tt.desc, Retriable: tt.retriable}
		if info != want {
			t.Errorf("LookupError(%d) = %+v, want %+v", tt.code, info, want)
		}
		if got := ErrorName(tt.code); got != tt.name {
			t.Errorf("ErrorName(%d) = %q, want %q", tt.code, got, tt.name)
		}
		if got := ErrorCode(tt.code).String(); got != tt.name {
			t.Errorf("ErrorCode(%d).String() = %q, want %q", tt.code, got, tt.name)
		}
	}
}

func TestErrorNewestCode(t *testing.T) {
	all := Errors()
	last := all[len(all)-1]
	if last.Code != 136 || last.Name != "CONTROLLER_ID_NOT_REGISTERED" {
		t.Errorf("newest code = %d %s, want 136 CONTROLLER_ID_NOT_REGISTERED", last.Code, last.Name)
	}
	if n := len(all); n != 138 {
		t.Errorf("len(Errors()) = %d, want 138 (-1 through 136)", n)
	}
}

// TestErrorRetriableSet pins the whole set of retriable codes: those whose
// exception in Kafka extends RetriableException (or InvalidMetadataException).
func TestErrorRetriableSet(t *testing.T) {
	want := []ErrorCode{
		2, 3, 5, 6, 7, 9, 13, 14, 15, 16, 19, 20, 41, 51, 56, 70, 71, 72, 74, 75,
		78, 80, 83, 84, 88, 89, 100, 103, 106, 122, 123, 133,
	}
	var got []ErrorCode
	for _, e := range Errors() {
		if e.Retriable {
			got = append(got, e.Code)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("retriable codes = %v, want %v", got, want)
	}
}

func TestErrorTableAscendingContiguousUnique(t *testing.T) {
	all := Errors()
	if len(all) == 0 || all[0].Code != minErrorCode {
		t.Fatalf("table must start at %d", minErrorCode)
	}
	namePattern := regexp.MustCompile(`^[A-Z][A-Z0-9_]*[A-Z0-9]$`)
	names := make(map[string]ErrorCode)
	for i, e := range all {
		if want := ErrorCode(minErrorCode + i); e.Code != want {
			t.Errorf("row %d has code %d, want %d (codes must be ascending and contiguous)", i, e.Code, want)
		}
		if !namePattern.MatchString(e.Name) {
			t.Errorf("code %d: name %q is not an upper-case Kafka name", e.Code, e.Name)
		}
		if prev, dup := names[e.Name]; dup {
			t.Errorf("name %q used by both %d and %d", e.Name, prev, e.Code)
		}
		names[e.Name] = e.Code
		if e.Code != 0 && e.Description == "" {
			t.Errorf("code %d (%s) has no description", e.Code, e.Name)
		}
		if got, ok := LookupError(int16(e.Code)); !ok || got != e {
			t.Errorf("LookupError(%d) = %+v, %v; want %+v, true", e.Code, got, ok, e)
		}
	}
}

func TestErrorUndefinedCodes(t *testing.T) {
	tests := []struct {
		code int16
		name string
	}{
		{-2, "UNKNOWN_ERROR_CODE_-2"},
		{137, "UNKNOWN_ERROR_CODE_137"},
		{5120, "UNKNOWN_ERROR_CODE_5120"},
		{math.MaxInt16, "UNKNOWN_ERROR_CODE_32767"},
		{math.MinInt16, "UNKNOWN_ERROR_CODE_-32768"},
	}
	for _, tt := range tests {
		if info, ok := LookupError(tt.code); ok || info != (ErrorInfo{}) {
			t.Errorf("LookupError(%d) = %+v, %v; want zero, false", tt.code, info, ok)
		}
		if got := ErrorName(tt.code); got != tt.name {
			t.Errorf("ErrorName(%d) = %q, want %q", tt.code, got, tt.name)
		}
		if got := ErrorCode(tt.code).String(); got != tt.name {
			t.Errorf("ErrorCode(%d).String() = %q, want %q", tt.code, got, tt.name)
		}
	}
}

func TestErrorsReturnsCopy(t *testing.T) {
	a := Errors()
	a[7].Name = "CHANGED"
	a[7].Retriable = !a[7].Retriable
	if info, _ := LookupError(6); info.Name != "NOT_LEADER_OR_FOLLOWER" || !info.Retriable {
		t.Errorf("mutating the result of Errors changed the table: %+v", info)
	}
	if b := Errors(); b[7].Name != "NOT_LEADER_OR_FOLLOWER" {
		t.Errorf("second Errors()[7].Name = %q", b[7].Name)
	}
}

// TestErrorMatchesKerr compares the table with franz-go's kerr package, an
// independently maintained copy of Kafka's Errors enum. Every code kerr knows
// must be in our table with the same name and retriability, except for the
// places below where kerr differs from Kafka itself (checked against
// Errors.java and the exception classes in org.apache.kafka.common.errors):
var (
	// kerrNames are codes whose kerr name is not Kafka's current name.
	kerrNames = map[int16]string{
		6: "NOT_LEADER_FOR_PARTITION", // Kafka's name before 2.6 (KIP-392 renamed it NOT_LEADER_OR_FOLLOWER)
	}
	// kerrRetriable are codes whose kerr Retriable flag is not Kafka's.
	kerrRetriable = map[int16]bool{
		8:   true,  // BrokerNotAvailableException extends ApiException, not RetriableException
		51:  false, // ConcurrentTransactionsException extends RetriableException
		122: false, // ShareSessionNotFoundException extends RetriableException
		123: false, // InvalidShareSessionEpochException extends RetriableException
	}
)

func TestErrorMatchesKerr(t *testing.T) {
	// The recorded differences must be real disagreements with our table.
	for code, kerrValue := range kerrRetriable {
		if info, _ := LookupError(code); info.Retriable == kerrValue {
			t.Errorf("kerrRetriable[%d] = %v agrees with our table; drop the entry", code, kerrValue)
		}
	}
	for code, kerrName := range kerrNames {
		if info, _ := LookupError(code); info.Name == kerrName {
			t.Errorf("kerrNames[%d] = %q agrees with our table; drop the entry", code, kerrName)
		}
	}

	known := 0
	for c := math.MinInt16; c <= math.MaxInt16; c++ {
		code := int16(c)
		var name string
		var retriable bool
		switch err := kerr.TypedErrorForCode(code); {
		case code == 0:
			if err != nil {
				t.Fatalf("kerr: code 0 gave %v, want nil", err)
			}
			name = "NONE"
		case err == kerr.UnknownServerError && code != -1:
			continue // kerr does not know code
		default:
			if err.Code != code {
				t.Fatalf("kerr: code %d gave %s with code %d", code, err.Message, err.Code)
			}
			name, retriable = err.Message, err.Retriable
		}
		known++

		info, ok := LookupError(code)
		if !ok {
			t.Errorf("code %d (%s) is in kerr but not in our table", code, name)
			continue
		}
		if name != info.Name && name != kerrNames[code] {
			t.Errorf("code %d: kerr name %q, ours %q", code, name, info.Name)
		}
		if _, knownDiff := kerrRetriable[code]; retriable != info.Retriable && !knownDiff {
			t.Errorf("code %d (%s): kerr retriable %v, ours %v", code, info.Name, retriable, info.Retriable)
		}
	}
	if known < 130 {
		t.Errorf("kerr knows only %d codes; the differential test compared too little", known)
	}
	if known != len(errorTable) {
		t.Logf("kerr knows %d codes, our table has %d", known, len(errorTable))
	}
}
