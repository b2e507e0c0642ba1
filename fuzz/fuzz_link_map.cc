// libFuzzer target: linker maps (mapparse) and the modules the formatter makes of them.
#include "ppe/formatter/address_sources.h"
#include "ppe/mapparse/link_map.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    auto map = ppe::mapparse::parseLinkMap(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.map");
    if (map) {
        std::vector<size_t> origin;
        (void)ppe::formatter::modulesFromMap(*map, origin);
    }
    return 0;
}
