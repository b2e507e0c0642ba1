// Two COMDAT sections whose names share their first 100 characters: gas cuts them alike in the
// listing (".section .text._ZN...", the member names past the cut).
template <class T> struct AVeryLongClassNameSoThatTheMangledSectionNamesOfItsMembersAreLongerThanTheListingShows {
    __attribute__((noipa)) int first(int x) { return x * 3 + int(sizeof(T)); }
    __attribute__((noipa)) int second(int x)
    {
        int s = 0;
        for (int i = 0; i < x; ++i)
            s += i * x;
        return s;
    }
};

int use(int x)
{
    AVeryLongClassNameSoThatTheMangledSectionNamesOfItsMembersAreLongerThanTheListingShows<double> a;
    return a.first(x) + a.second(x);
}
