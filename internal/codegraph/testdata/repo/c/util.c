#include <stdio.h>
#include "util.h"

/* A second static helper: the same name, another file.  */
static int
helper (int x)
{
  return x * 2;
}

void
log_value (int v)
{
  printf ("%d\n", helper (v));
}
libc_hidden_def (log_value)

int
count_down (int n)
{
  if (n > 0)
    return count_down (n - 1);
  return 0;
}
