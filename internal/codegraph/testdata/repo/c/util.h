#ifndef UTIL_H
#define UTIL_H

#define SQUARE(x) ((x) * (x))

void log_value (int v);

static inline int
twice (int x)
{
  return x + x;
}

#endif
