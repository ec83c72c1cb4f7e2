package html

// Thin is thin, for tests.
var Thin = thin
