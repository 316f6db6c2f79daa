package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/dissect/render"
)

func newDecodeCmd() *cobra.Command {
	var (
		apiFlag     string
		version     int16
		sizePrefix  string
		input       string
		compact     bool
		showSecrets bool
	)
	cmd := &cobra.Command{
		Use:   "decode [HEX...]",
		Short: "Decode one Kafka frame given as hex or raw bytes",
		Long: `Decode one Kafka request or response frame (header and body), given as hex
on the command line or on standard input, or as raw bytes on standard input,
with or without its 4-byte size prefix.

A request carries its ApiKey and ApiVersion. A response carries neither:
name them with --api and --version.

Hex may be written with spaces, newlines, colons or commas between bytes, and
0x or \x before them, as bytes are often copied out of logs and bug reports.`,
		Example: `  kdissect decode 00120003000000010007636f6e736f6c6500096b6469737365637404312e3000
  kdissect decode --api Produce --version 9 < response.hex
  xxd -p frame.bin | kdissect decode`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var data []byte
			if len(args) > 0 {
				data = []byte(strings.Join(args, " "))
				if input == "auto" {
					input = "hex" // arguments are text: raw bytes come on stdin
				}
			} else {
				// Frames above 100 MiB are refused by brokers (socket.request.max.bytes);
				// hex with separators takes about three times that.
				const maxInput = 512 << 20
				b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), maxInput+1))
				if err != nil {
					return inputError{fmt.Errorf("read standard input: %w", err)}
				}
				if len(b) > maxInput {
					return inputError{fmt.Errorf("standard input holds more than %d bytes: not one frame", int64(maxInput))}
				}
				data = b
			}
			frame, err := parseFrameInput(data, input)
			if err != nil {
				return err
			}
			frame, note, err := stripSizePrefix(frame, sizePrefix, apiFlag == "")
			if err != nil {
				return err
			}
			ex := &dissect.Exchange{APIKey: -1, APIVersion: -1}
			if note != "" {
				ex.AddNote(note)
			}
			f := &dissect.Frame{Bytes: frame, Size: int32(len(frame))}
			if apiFlag == "" {
				if cmd.Flags().Changed("version") {
					return fmt.Errorf("--version names a response's version and needs --api; a request carries its own")
				}
				if len(frame) < 8 {
					return fmt.Errorf("a request frame needs at least 8 bytes (ApiKey, ApiVersion, CorrelationId), got %d", len(frame))
				}
				ex.Request = f
				ex.APIKey = int16(binary.BigEndian.Uint16(frame))
				ex.APIVersion = int16(binary.BigEndian.Uint16(frame[2:]))
				ex.CorrelationID = int32(binary.BigEndian.Uint32(frame[4:]))
			} else {
				api, err := parseAPI(apiFlag)
				if err != nil {
					return err
				}
				if !cmd.Flags().Changed("version") {
					return fmt.Errorf("--api needs --version: a response does not carry its version")
				}
				if version < 0 {
					return fmt.Errorf("--version %d: want a version number", version)
				}
				if !api.SupportsVersion(version) {
					ex.AddNote(fmt.Sprintf("unsupported version: %s v%d (the codec knows v%d-v%d)", api.Name, version, api.MinVersion, api.MaxVersion))
				}
				if len(frame) < 4 {
					return fmt.Errorf("a response frame needs at least 4 bytes (CorrelationId), got %d", len(frame))
				}
				ex.Response = f
				ex.APIKey, ex.APIVersion = api.Key, version
				ex.CorrelationID = int32(binary.BigEndian.Uint32(frame))
			}
			dissect.NewDecoder(dissect.DecodeOptions{}).DecodeFrames(ex)
			w := codec.NewJSONWriter(nil)
			w.ShowSecrets = showSecrets
			render.AppendFrameJSON(w, ex)
			out := w.Bytes()
			if !compact {
				var buf bytes.Buffer
				if err := json.Indent(&buf, out, "", "  "); err != nil {
					return fmt.Errorf("internal error: invalid JSON: %w", err)
				}
				out = buf.Bytes()
			}
			if _, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", out); err != nil {
				return inputError{fmt.Errorf("write output: %w", err)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&apiFlag, "api", "", "the response's API, by name (Produce) or key (0)")
	cmd.Flags().Int16Var(&version, "version", 0, "the response's ApiVersion")
	cmd.Flags().StringVar(&sizePrefix, "size-prefix", "auto", "whether the input starts with the 4-byte size: auto, yes or no")
	cmd.Flags().StringVar(&input, "input", "auto", "input encoding: auto (hex if it parses as hex, else raw), hex or raw")
	cmd.Flags().BoolVar(&compact, "compact", false, "print JSON on one line")
	cmd.Flags().BoolVar(&showSecrets, "show-secrets", false, "show SASL credentials and delegation token HMACs instead of redacting them")
	return cmd
}

// parseAPI accepts an API name (case-insensitive) or key.
func parseAPI(s string) (*codec.API, error) {
	if n, err := strconv.ParseInt(s, 10, 16); err == nil {
		if api, ok := codec.LookupAPI(int16(n)); ok {
			return api, nil
		}
		return nil, fmt.Errorf("unknown API key %d (see kdissect apis)", n)
	}
	for _, a := range codec.APIs() {
		if strings.EqualFold(a.Name, s) {
			api, _ := codec.LookupAPI(a.Key)
			return api, nil
		}
	}
	return nil, fmt.Errorf("unknown API %q (see kdissect apis)", s)
}

// parseFrameInput turns the input into frame bytes.
func parseFrameInput(data []byte, mode string) ([]byte, error) {
	switch mode {
	case "raw":
		return data, nil
	case "hex":
		b, err := parseHex(data)
		if err != nil {
			return nil, fmt.Errorf("input is not hex: %w", err)
		}
		return b, nil
	case "auto":
		b, err := parseHex(data)
		if err == nil {
			return b, nil
		}
		if isText(data) {
			// Text that is not hex is a mistyped hex frame far more often
			// than a frame of printable bytes.
			return nil, fmt.Errorf("input is not hex: %w (--input raw reads the bytes as they are)", err)
		}
		return data, nil
	}
	return nil, fmt.Errorf("unknown --input %q (want auto, hex or raw)", mode)
}

// parseHex reads hex digits separated by white space, colons, commas or
// dashes, each byte optionally written 0x.. or \x.. .
func parseHex(data []byte) ([]byte, error) {
	s := string(bytes.TrimSpace(data))
	if s == "" {
		return nil, fmt.Errorf("no input")
	}
	s = strings.NewReplacer("0x", " ", "0X", " ", `\x`, " ", ",", " ", ":", " ", "-", " ").Replace(s)
	var digits strings.Builder
	for _, field := range strings.Fields(s) {
		for _, r := range field {
			if !unicode.Is(unicode.ASCII_Hex_Digit, r) {
				return nil, fmt.Errorf("%q is not a hex digit", r)
			}
		}
		switch {
		case len(field) == 1:
			field = "0" + field // "0x0" or "0 1 2" style single digits
		case len(field)%2 == 1:
			return nil, fmt.Errorf("odd number of hex digits in %q: a nibble is missing", field)
		}
		digits.WriteString(field)
	}
	return hex.DecodeString(digits.String())
}

// isText says whether b is printable ASCII and white space only.
func isText(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// stripSizePrefix removes a leading 4-byte size: with auto, when it equals
// the length of what follows, or, for a request, when the size is off but
// only the bytes after it start with a known ApiKey and ApiVersion (bytes
// copied with one too many or too few); with yes, always. A size that does
// not match the bytes that follow is noted.
func stripSizePrefix(b []byte, mode string, request bool) (frame []byte, note string, err error) {
	mismatch := func() string {
		if n := binary.BigEndian.Uint32(b); int64(n) != int64(len(b)-4) {
			return fmt.Sprintf("the size prefix says %d bytes, %d follow", n, len(b)-4)
		}
		return ""
	}
	switch mode {
	case "auto":
		if len(b) >= 4 && int64(binary.BigEndian.Uint32(b)) == int64(len(b)-4) {
			return b[4:], "", nil
		}
		if request && len(b) >= 8 && !knownRequest(b) && knownRequest(b[4:]) && binary.BigEndian.Uint32(b) > 0 {
			return b[4:], mismatch(), nil
		}
		return b, "", nil
	case "yes":
		if len(b) < 4 {
			return nil, "", fmt.Errorf("input of %d bytes has no 4-byte size prefix", len(b))
		}
		return b[4:], mismatch(), nil
	case "no":
		return b, "", nil
	}
	return nil, "", fmt.Errorf("unknown --size-prefix %q (want auto, yes or no)", mode)
}

// knownRequest says whether b starts with an ApiKey and ApiVersion the
// codec knows.
func knownRequest(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	api, ok := codec.LookupAPI(int16(binary.BigEndian.Uint16(b)))
	return ok && api.SupportsVersion(int16(binary.BigEndian.Uint16(b[2:])))
}
