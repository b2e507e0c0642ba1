// libFuzzer target: assembler listings (listparse) and their placement at a map's addresses.
#include "ppe/formatter/address_sources.h"
#include "ppe/listparse/listing.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)ppe::listparse::looksLikeListing(text);
    auto listing = ppe::listparse::parseListing(text, "fuzz.lis");
    if (!listing)
        return 0;
    ppe::mapparse::LinkMap map;
    ppe::mapparse::Module unit { "fuzz.o", "fuzz.o", {} };
    uint64_t address = 0x1000;
    for (const auto& [name, sectionSize] : listing->sectionSizes) {
        if (sectionSize)
            unit.sections.push_back({ name, ".text", address, sectionSize });
        address += sectionSize + 16;
    }
    map.modules.push_back(unit);
    (void)ppe::formatter::placeListing(*listing, "fuzz.lis", map);
    return 0;
}
