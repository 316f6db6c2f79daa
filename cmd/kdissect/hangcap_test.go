package main

import "time"

// hangCap bounds a test's wait for something that comes in well under a
// second on an idle machine: a command ending, a line printed, a metric
// counted, a client's request answered. It only turns a hang into a
// failure that says what did not come, so it is long enough that a busy
// machine (two cores shared with a parallel build or stress-ng) never
// reaches it, and short enough that a hang fails its test with that
// message before go test's 10-minute timeout panics the whole package.
const hangCap = 2 * time.Minute
