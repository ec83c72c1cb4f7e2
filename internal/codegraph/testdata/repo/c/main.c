/* Fixture for the code graph tests: a small C program. Line numbers matter to the tests. */
#include "util.h"

static int helper (int x);

/* Recursion: fact calls itself.  */
int
fact (int n)
{
  return n <= 1 ? 1 : n * fact (n - 1);
}

static int
helper (int x)
{
  return x + 1;
}

/* A call through a function pointer parameter.  */
static int
apply (int (*op) (int), int v)
{
  return op (v);
}

struct ops
{
  int (*run) (int);
};

static const struct ops default_ops = { .run = helper };

int
main (void)
{
  const struct ops *o = &default_ops;
  int (*fp) (int) = helper;
  int r = fact (5) + helper (1) + apply (helper, 2);
  r += o->run (3);
  r += (*fp) (4);
  log_value (SQUARE (r));
  return twice (r);
}
