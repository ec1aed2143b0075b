/*
 * power-fixture.c - a stand-in library exporting the Android power and
 * sensor symbols (and BlueZ's hci_le_set_scan_enable, which needs an HCI
 * adapter this machine does not have), for tests/e2e/power-*.sh.  Each
 * call only counts; the agent sees the calls through the program's GOT as
 * it would see the real libraries'.
 */
#include <stdint.h>

typedef struct ASensor ASensor;
typedef struct ASensorEventQueue ASensorEventQueue;
struct ASensor { float power_ma; };

static int calls;

int acquire_wake_lock(int lock, const char *id) { (void)lock; (void)id; calls++; return 0; }
int release_wake_lock(const char *id) { (void)id; calls++; return 0; }
int ASensorEventQueue_enableSensor(ASensorEventQueue *q, const ASensor *s)
{ (void)q; (void)s; calls++; return 0; }
int ASensorEventQueue_disableSensor(ASensorEventQueue *q, const ASensor *s)
{ (void)q; (void)s; calls++; return 0; }
int ASensorEventQueue_registerSensor(ASensorEventQueue *q, const ASensor *s, int32_t period_us,
    int64_t latency_us)
{ (void)q; (void)s; (void)period_us; (void)latency_us; calls++; return 0; }
float ASensor_getPower(const ASensor *s) { return s->power_ma; }
int hci_le_set_scan_enable(int dd, uint8_t enable, uint8_t filter_dup, int to)
{ (void)dd; (void)enable; (void)filter_dup; (void)to; calls++; return 0; }
/* Not in the shipped table: a test copy adds rows for these. */
int fixture_lock_get(const char *name) { (void)name; return ++calls; }
int fixture_lock_put(const char *name) { (void)name; return ++calls; }
int fixture_calls(void) { return calls; }
