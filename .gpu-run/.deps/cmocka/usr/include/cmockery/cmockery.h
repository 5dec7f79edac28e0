#include <cmocka.h>
