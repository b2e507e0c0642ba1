// An in-memory file for tests of code that writes to a file descriptor.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace ppe::test {

class Memfd {
public:
    Memfd()
        : m_fd(memfd_create("ppe-unit", MFD_CLOEXEC))
    {
        EXPECT_GE(m_fd, 0) << "memfd_create failed";
    }
    ~Memfd()
    {
        if (m_fd >= 0)
            close(m_fd);
    }
    Memfd(const Memfd&) = delete;
    Memfd& operator=(const Memfd&) = delete;

    int fd() const { return m_fd; }

    // Everything written so far.
    std::string contents() const
    {
        const off_t size = lseek(m_fd, 0, SEEK_END);
        std::string text(size > 0 ? size_t(size) : 0, '\0');
        EXPECT_EQ(pread(m_fd, text.data(), text.size(), 0), ssize_t(text.size()));
        return text;
    }

private:
    int m_fd;
};

} // namespace ppe::test
