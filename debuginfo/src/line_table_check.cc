#include "line_table_check.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/Support/DataExtractor.h>

#include <vector>

namespace ppe::debuginfo {

namespace {

    using namespace llvm::dwarf;

    // The bytes a value of `form` takes in an entry: 0 for a NUL-terminated string, -1 for a
    // ULEB128, -2 for a block with a ULEB128 length, -3 for a form LLVM 14 cannot read there.
    int formSize(uint64_t form, unsigned offsetSize)
    {
        switch (form) {
        case DW_FORM_string:
            return 0;
        case DW_FORM_line_strp:
        case DW_FORM_strp:
            return int(offsetSize);
        case DW_FORM_strx:
        case DW_FORM_udata:
            return -1;
        case DW_FORM_block:
            return -2;
        case DW_FORM_strx1:
        case DW_FORM_data1:
            return 1;
        case DW_FORM_strx2:
        case DW_FORM_data2:
            return 2;
        case DW_FORM_strx3:
            return 3;
        case DW_FORM_strx4:
        case DW_FORM_data4:
            return 4;
        case DW_FORM_data8:
            return 8;
        case DW_FORM_data16:
            return 16;
        default:
            return -3;
        }
    }

    class HeaderCheck {
    public:
        HeaderCheck(llvm::StringRef section, uint64_t offset, bool littleEndian)
            : m_data(section, littleEndian, 8)
            , m_cursor(offset)
        {
        }
        ~HeaderCheck() { llvm::consumeError(m_cursor.takeError()); }

        bool safe()
        {
            const int version = readVersion();
            if (version < 2 || version > 5)
                return false;
            if (version < 5)
                return true; // no entry formats before DWARF 5
            skipToEntryFormats();
            std::vector<uint64_t> directoryForms, fileForms;
            if (!readForms(directoryForms))
                return false;
            const uint64_t directories = m_data.getULEB128(m_cursor);
            for (uint64_t i = 0; i < directories && m_cursor; ++i)
                skipEntry(directoryForms);
            return m_cursor && readForms(fileForms);
        }

    private:
        // The version after the unit length (which sets the offset size), or 0.
        int readVersion()
        {
            const uint64_t length = m_data.getU32(m_cursor);
            if (length == 0xffffffff) {
                m_data.getU64(m_cursor);
                m_offsetSize = 8;
            }
            const uint16_t version = m_data.getU16(m_cursor);
            return m_cursor ? version : 0;
        }

        void skipToEntryFormats()
        {
            m_data.skip(m_cursor, 2); // address_size, segment_selector_size
            m_data.skip(m_cursor, m_offsetSize); // header_length
            // minimum_instruction_length, maximum_operations_per_instruction, default_is_stmt,
            // line_base, line_range
            m_data.skip(m_cursor, 5);
            const uint8_t opcodeBase = m_data.getU8(m_cursor);
            m_data.skip(m_cursor, opcodeBase ? opcodeBase - 1 : 0); // standard_opcode_lengths
        }

        // An entry format: its forms, false if one is a form LLVM 14 cannot read there.
        bool readForms(std::vector<uint64_t>& forms)
        {
            const uint8_t count = m_data.getU8(m_cursor);
            for (unsigned i = 0; i < count && m_cursor; ++i) {
                m_data.getULEB128(m_cursor); // content type
                const uint64_t form = m_data.getULEB128(m_cursor);
                if (formSize(form, m_offsetSize) == -3)
                    return false;
                forms.push_back(form);
            }
            return bool(m_cursor);
        }

        void skipEntry(const std::vector<uint64_t>& forms)
        {
            for (uint64_t form : forms) {
                const int size = formSize(form, m_offsetSize);
                if (size == 0)
                    m_data.getCStrRef(m_cursor);
                else if (size == -1)
                    m_data.getULEB128(m_cursor);
                else if (size == -2)
                    m_data.skip(m_cursor, m_data.getULEB128(m_cursor));
                else
                    m_data.skip(m_cursor, uint64_t(size));
            }
        }

        llvm::DataExtractor m_data;
        llvm::DataExtractor::Cursor m_cursor;
        unsigned m_offsetSize = 4;
    };

} // namespace

bool lineTableHeaderIsSafe(llvm::StringRef section, uint64_t offset, bool littleEndian)
{
    return HeaderCheck(section, offset, littleEndian).safe();
}

} // namespace ppe::debuginfo
