package report

// Thin is thin, for tests.
var Thin = thin
