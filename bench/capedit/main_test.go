package main

import "testing"

func TestParseFraction(t *testing.T) {
	for in, want := range map[string]float64{"0": 0, "0.005": 0.005, "0.5%": 0.005, " 1 ": 1, "100%": 1, "0.06%": 0.0006} {
		if got, err := parseFraction(in); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "2", "-0.1", "101%", "NaN", "x%"} {
		if got, err := parseFraction(in); err == nil {
			t.Errorf("%q: %v, want an error", in, got)
		}
	}
}
