package stats

import "github.com/kdissect/kdissect/internal/histogram"

// Histogram is the latency histogram of the statistics (microseconds);
// internal/histogram holds it so that replay's report shares it without
// depending on an output.
type Histogram = histogram.Histogram

// RelativeError is the largest relative error of a reported percentile
// once a Histogram's samples no longer fit its exact store.
const RelativeError = histogram.RelativeError
