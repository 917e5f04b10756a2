// Fault plugin: a shared library that loads fine but exports no duet_backend_entry (only a
// misspelt neighbour), as a plugin built against the wrong header or without the export would.
#include <duet/abi/backend.h>

extern "C" DUET_BACKEND_EXPORT duet_status duet_backend_entry_misspelt(uint32_t, uint32_t, const duet_backend_v1** out)
{
    *out = nullptr;
    return DUET_ERROR_BACKEND;
}
