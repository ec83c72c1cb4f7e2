#include <string.h>

/* Copies a user-supplied name into a fixed buffer without checking its length. */
int greet(const char *name)
{
	char buf[16];
	strcpy(buf, name);
	return (int)strlen(buf);
}
