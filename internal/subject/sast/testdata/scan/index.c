/* Writes one past the end of a stack array: cppcheck's arrayIndexOutOfBounds. */
int last(void)
{
	int v[4];
	v[4] = 1;
	return v[0];
}
