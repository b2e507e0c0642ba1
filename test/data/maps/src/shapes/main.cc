#include "shapes.h"

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv)
{
    int count = argc > 1 ? std::atoi(argv[1]) : 10;
    auto shapes = makeShapes(count);
    std::vector<int> sides;
    for (int i = 0; i < count; ++i)
        sides.push_back(i);
    std::printf("area %.3f sides %d\n", totalArea(shapes), sumOf(sides));
    return 0;
}
