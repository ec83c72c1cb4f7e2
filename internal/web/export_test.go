package web

// Pager and PageOf are pager and pageOf for the tests.
type Pager = pager

var PageOf = pageOf
