/*
 * bcryptprimitives.dll shim for running Go's Windows test binaries under Wine 8.
 *
 * Go >= 1.22 draws its randomness from bcryptprimitives.dll!ProcessPrng, which
 * Wine 8 does not export, so every Go program aborts at start-up there. This
 * DLL exports ProcessPrng and fills the buffer through advapi32's
 * SystemFunction036 (RtlGenRandom), which Wine has. It is a test-only helper:
 * scripts/wine/run-test.sh builds it with mingw-w64 and puts it next to the
 * program under test; nothing of it ships in a release.
 */
#include <windows.h>

typedef BOOLEAN (WINAPI *rtlgenrandom_fn)(PVOID, ULONG);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    static rtlgenrandom_fn gen;
    if (!gen) {
        HMODULE advapi = LoadLibraryA("advapi32.dll");
        if (!advapi)
            return FALSE;
        gen = (rtlgenrandom_fn)GetProcAddress(advapi, "SystemFunction036");
        if (!gen)
            return FALSE;
    }
    /* RtlGenRandom takes a ULONG length: feed large requests in chunks. */
    while (len > 0) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!gen(data, n))
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE inst, DWORD reason, LPVOID reserved)
{
    (void)inst; (void)reason; (void)reserved;
    return TRUE;
}
