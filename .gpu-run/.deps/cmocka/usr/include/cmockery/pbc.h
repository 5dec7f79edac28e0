#include <cmocka_pbc.h>
