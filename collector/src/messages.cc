#include "messages.h"

#include "ppe/core/line_writer.h"

#include <unistd.h>

namespace ppe {

void say(std::initializer_list<Part> parts)
{
    char buffer[512];
    LineWriter w(STDERR_FILENO, buffer, sizeof(buffer));
    w.str("ppe: ");
    for (const Part& part : parts) {
        if (part.kind == Part::Text)
            w.str(part.text);
        else if (part.kind == Part::Dec)
            w.dec(part.number);
        else
            w.hex(part.number);
    }
    w.endl();
    w.flush();
}

} // namespace ppe
