/* table: data and no code, linked without start files, so its maps have no code section. */
const int table[4] = { 1, 2, 3, 4 };
int counter = 5;
