// Builds a precompiled header that the Qt Test executables reuse (pitwall_test_pch_anchors in
// cmake/PitwallHelpers.cmake); the program itself does nothing.
int main()
{
    return 0;
}
