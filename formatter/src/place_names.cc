#include "place_names.h"

#include "ppe/formatter/inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

namespace ppe::formatter {

namespace {

    std::string baseName(const std::string& path)
    {
        const size_t slash = path.rfind('/');
        return slash == std::string::npos ? path : path.substr(slash + 1);
    }

    template <class Ranges> bool covers(const Ranges& ranges, uint64_t address)
    {
        return std::any_of(
            ranges.begin(), ranges.end(), [address](const auto& r) { return address >= r.start && address < r.end; });
    }

    const CodeModule* moduleAt(const std::vector<CodeModule>& modules, uint64_t address)
    {
        for (const CodeModule& m : modules) {
            if (covers(m.ranges, address))
                return &m;
        }
        return nullptr;
    }

    // "file:line" of `address` in the module's line table, "" when it has none there.
    std::string lineAt(const CodeModule* module, const std::vector<LineTable>& tables, uint64_t address)
    {
        if (!module || module->lineTable < 0 || size_t(module->lineTable) >= tables.size())
            return "";
        const LineTable& table = tables[size_t(module->lineTable)];
        auto it = std::upper_bound(table.ranges.begin(), table.ranges.end(), address,
            [](uint64_t a, const LineSpan& span) { return a < span.start; });
        if (it == table.ranges.begin() || address >= (--it)->end || it->file < 0
            || size_t(it->file) >= table.files.size())
            return "";
        return fmt::format("{}:{}", baseName(table.files[size_t(it->file)]), it->line);
    }

    struct Namer {
        const Profile& profile;
        const std::vector<CodeModule>& modules;
        const std::vector<LineTable>& tables;
        const debuginfo::DebugInfo* image;
        const std::vector<std::string>& debugDirs;
        bool lines; // "function (file:line)"; else the function alone
        std::map<size_t, std::optional<ObjectCode>> objects; // read on first use; nullopt: unreadable

        std::string inImage(uint64_t address)
        {
            const CodeModule* module = moduleAt(modules, address);
            std::string function;
            if (image) {
                for (const debuginfo::Function& f : image->functions) {
                    if (covers(f.ranges, address))
                        function = f.name;
                }
            }
            if (function.empty())
                function = module ? module->name : fmt::format("0x{:x}", address + 1);
            const std::string line = lines ? lineAt(module, tables, address) : "";
            return line.empty() ? function : fmt::format("{} ({})", function, line);
        }

        std::string inObject(size_t index, uint64_t offset)
        {
            const SharedObject& object = profile.objects[index];
            auto found = objects.find(index);
            if (found == objects.end()) {
                Result<ObjectCode> code = sharedObjectCode(object, profile, debugDirs);
                found = objects.emplace(index, code ? std::optional(std::move(*code)) : std::nullopt).first;
            }
            const std::string name = baseName(object.path);
            if (found->second && found->second->addressOfOffset) {
                if (const std::optional<uint64_t> address = found->second->addressOfOffset(offset)) {
                    if (const CodeModule* f = moduleAt(found->second->functions, *address))
                        return fmt::format("{} ({})", f->name, name);
                }
            }
            return fmt::format("{}+0x{:x}", name, offset + 1);
        }

        std::string operator()(const CodeLocation& place)
        {
            switch (place.kind) {
            case CodeLocation::Kind::None:
                return "";
            case CodeLocation::Kind::Image:
                return inImage(place.address - 1);
            case CodeLocation::Kind::Object:
                return place.object < profile.objects.size() ? inObject(place.object, place.address - 1) : "";
            case CodeLocation::Kind::Address:
                break;
            }
            return fmt::format("0x{:x} (in no object)", place.address);
        }
    };

} // namespace

PlaceNamer makePlaceNamer(const Profile& profile, const std::vector<CodeModule>& modules,
    const std::vector<LineTable>& tables, const debuginfo::DebugInfo* image, const std::vector<std::string>& debugDirs)
{
    auto namer = std::make_shared<Namer>(Namer { profile, modules, tables, image, debugDirs, true, {} });
    return [namer](const CodeLocation& place) { return (*namer)(place); };
}

PlaceNamer makeFunctionNamer(const Profile& profile, const std::vector<CodeModule>& modules,
    const std::vector<LineTable>& tables, const debuginfo::DebugInfo* image, const std::vector<std::string>& debugDirs)
{
    auto namer = std::make_shared<Namer>(Namer { profile, modules, tables, image, debugDirs, false, {} });
    return [namer](const CodeLocation& place) { return (*namer)(place); };
}

} // namespace ppe::formatter
