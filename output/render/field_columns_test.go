package render

import (
	"slices"
	"testing"
)

// TestGuardFormulas: what a spreadsheet would run as a formula gets a
// leading ', a plain number starting with - or + does not.
func TestGuardFormulas(t *testing.T) {
	for cell, formula := range map[string]bool{
		"=1+2": true, "+cmd": true, "-2+3": true, "@SUM(A1)": true, "\tx": true, "\rx": true,
		"-": true, "+": true, "-.": true, "--1": true, "-1e": true, "-0x10": true, "-Inf": true, "-1 ": true,
		"-1": false, "+3": false, "-0.5": false, "-.5": false, "-5.": false, "-1e9": false, "-1E+3": false,
		"": false, "orders": false, "a=b": false, "1-2": false, " =1": false,
	} {
		if got := isFormula(cell); got != formula {
			t.Errorf("isFormula(%q) = %v, want %v", cell, got, formula)
		}
	}
	in := []string{"ok", "=x", "-1"}
	out := guardFormulas(in)
	if !slices.Equal(out, []string{"ok", "'=x", "-1"}) || in[1] != "=x" {
		t.Errorf("guardFormulas: %q (input now %q)", out, in)
	}
}
