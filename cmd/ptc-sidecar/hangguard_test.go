package main

import "time"

// hangGuard bounds a wait that only a hang reaches. It is no measure of
// speed (tests judge outcomes, never the wall clock), so it is generous
// enough for the busiest machine.
const hangGuard = 5 * time.Minute
