#include "core/util/manpage.h"

#include "core/util/strings.h"

#include <cctype>
#include <cstdlib>
#include <ctime>
#include <sstream>

namespace pitwall::cmdline {

namespace {

std::string upper(std::string text)
{
    for (char& c : text)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

std::string joined(const std::string& path, char separator)
{
    std::string out = path;
    for (char& c : out)
        if (c == ' ')
            c = separator;
    return out;
}

bool isBlank(const std::string& line) { return line.find_first_not_of(" \t") == std::string::npos; }

// A line of the description that is set apart (an example, a list item's continuation): it starts with a space.
bool isIndented(const std::string& line) { return !line.empty() && (line[0] == ' ' || line[0] == '\t'); }

// The description's paragraphs: text lines joined and filled; runs of indented lines kept as they are.
void writeParagraphs(std::ostringstream& out, const std::string& text)
{
    std::vector<std::string> lines = split(text, '\n');
    std::string paragraph;
    bool inExample = false;
    auto flush = [&] {
        if (!paragraph.empty())
            out << ".PP\n" << roffEscape(paragraph) << "\n";
        paragraph.clear();
    };
    for (const std::string& line : lines) {
        if (isBlank(line)) {
            if (inExample) {
                out << ".fi\n.RE\n";
                inExample = false;
            }
            flush();
            continue;
        }
        if (isIndented(line)) {
            if (!inExample) {
                flush();
                out << ".RS 2\n.nf\n";
                inExample = true;
            }
            const std::size_t start = line.find_first_not_of(" \t");
            out << roffEscape(line.substr(start)) << "\n";
            continue;
        }
        if (inExample) {
            out << ".fi\n.RE\n";
            inExample = false;
        }
        paragraph += (paragraph.empty() ? "" : " ") + line;
    }
    if (inExample)
        out << ".fi\n.RE\n";
    flush();
}

void writeHeader(std::ostringstream& out, const ManPageInfo& info, const std::string& name)
{
    out << ".\\\" Written by " << info.program << " " << info.version
        << " from the text of its --help (docs/commands.md); do not edit.\n"
        << ".TH " << upper(name) << " 1 \"" << info.date << "\" \"Pitwall " << info.version
        << "\" \"Pitwall Manual\"\n";
}

void writeClosingSections(std::ostringstream& out, const ManPageInfo& info, const std::string& self)
{
    out << ".SH EXIT STATUS\n"
        << ".TP\n.B 0\nsuccess\n"
        << ".TP\n.B 1\nthe work failed (the message says why)\n"
        << ".TP\n.B 2\nbad input or usage (the message names the file, line or option to change)\n"
        << ".TP\n.B 130\ncancelled\n"
        << ".SH ENVIRONMENT\n"
        << ".TP\n.B PITWALL_DB\n" << roffEscape("the results database when --db is not given (default ./pitwall.db)")
        << "\n"
        << ".TP\n.B PITWALL_PLUGIN_PATH\n"
        << roffEscape("':'-separated folders searched for plugins before <install>/lib/pitwall/plugins") << "\n"
        << ".SH SEE ALSO\n";
    std::vector<std::string> others;
    for (const std::string& other : {std::string("pitwall"), std::string("pitwall-gui")})
        if (self != other)
            others.push_back(other);
    for (std::size_t i = 0; i < others.size(); ++i)
        out << ".BR " << roffEscape(others[i]) << " (1)" << (i + 1 < others.size() ? "," : "") << "\n";
}

} // namespace

std::string manPageDate()
{
    std::time_t when = std::time(nullptr);
    if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch && *epoch)
        when = static_cast<std::time_t>(std::strtoll(epoch, nullptr, 10));
    std::tm utc{};
    gmtime_r(&when, &utc);
    char text[16];
    std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
    return text;
}

std::string roffEscape(const std::string& text)
{
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    bool lineStart = true;
    for (char c : text) {
        if (lineStart && (c == '.' || c == '\''))
            out += "\\&";
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
        lineStart = c == '\n';
    }
    return out;
}

std::string manPageName(const std::string& program, const std::string& path)
{
    return path.empty() ? program : program + "-" + joined(path, '-');
}

std::string commandManPage(const ManPageInfo& info, const Command& command)
{
    const std::string name = manPageName(info.program, command.path);
    std::ostringstream out;
    writeHeader(out, info, name);
    out << ".SH NAME\n" << roffEscape(name) << " \\- " << roffEscape(command.summary) << "\n";
    out << ".SH SYNOPSIS\n.B " << roffEscape(command.path.empty() ? info.program : info.program + " " + command.path)
        << "\n";
    if (!command.usage.empty())
        out << roffEscape(command.usage) << "\n";
    out << ".SH DESCRIPTION\n";
    writeParagraphs(out, command.summary + (command.description.empty() ? "" : "\n\n" + command.description));
    out << ".SH OPTIONS\n";
    for (const OptionSpec& option : command.options) {
        out << ".TP\n\\fB\\-\\-" << roffEscape(option.name) << "\\fR";
        if (!option.valueName.empty())
            out << " \\fI" << roffEscape(option.valueName) << "\\fR";
        out << "\n" << roffEscape(option.help) << (option.repeatable ? " (repeatable)" : "") << "\n";
    }
    out << ".TP\n.B \\-\\-help\nshow this help\n";
    writeClosingSections(out, info, name);
    return out.str();
}

std::string overviewManPage(const ManPageInfo& info, const std::string& tagline, const std::string& notes,
                            const std::vector<Command>& commands)
{
    std::ostringstream out;
    writeHeader(out, info, info.program);
    out << ".SH NAME\n" << roffEscape(info.program) << " \\- " << roffEscape(tagline) << "\n";
    out << ".SH SYNOPSIS\n.B " << roffEscape(info.program) << "\nCOMMAND [ARGS...]\n.br\n.B "
        << roffEscape(info.program) << "\nCOMMAND \\-\\-help\n";
    out << ".SH COMMANDS\n";
    for (const Command& command : commands) {
        if (command.hidden)
            continue;
        out << ".TP\n.B " << roffEscape(command.path) << "\n"
            << roffEscape(command.summary) << " (see\n.BR " << roffEscape(manPageName(info.program, command.path))
            << " (1))\n";
    }
    if (!notes.empty()) {
        out << ".SH NOTES\n";
        writeParagraphs(out, notes);
    }
    writeClosingSections(out, info, info.program);
    return out.str();
}

} // namespace pitwall::cmdline
