/*
 * tusk: reading the text inputs of other simulators (htsim's .cm, HPCC's topology.txt, flow.txt
 * and config.txt, SimAI's workload files) the same way: lines numbered from 1, tokens split
 * on blanks, comments where the format has them, errors naming file:line and key
 * (ns3::InputError, exit status 2).
 */
#ifndef TUSK_INPUT_TEXT_READER_H
#define TUSK_INPUT_TEXT_READER_H

#include <fstream>
#include <string>
#include <vector>

namespace ns3
{

/** \brief The tokens of `line`, split on blanks (space, tab, CR, vertical tab, form feed). */
std::vector<std::string> SplitBlanks(const std::string& line);

/**
 * \brief A text input read line by line.
 *
 * Line 1 may start with a UTF-8 byte-order mark (dropped). A line with a NUL byte is refused:
 * the file is not text. A line with no token is blank; with `HASH_COMMENTS`, a line whose
 * first token starts with '#' is a comment; NextLine skips both. Every error is an
 * ns3::InputError naming the file, the line (0: before the first) and the key; a read error
 * (a directory) is one too.
 */
class InputTextReader
{
  public:
    /** What a '#' starts. */
    enum Comments
    {
        NO_COMMENTS,   //!< nothing: '#' is text (HPCC topology and flows, SimAI)
        HASH_COMMENTS, //!< a comment line, when it starts the line's first token (htsim .cm,
                       //!< HPCC config.txt)
        HASH_TO_END,   //!< a comment to the end of the line, anywhere (htsim .topo)
    };

    /**
     * \param path the file
     * \param what what it is, for the message if it cannot be opened ("connection matrix")
     * \param comments whether '#' starts a comment line
     * \throws InputError (path, line 0, key "file") when the file cannot be opened
     */
    InputTextReader(std::string path, const std::string& what, Comments comments = NO_COMMENTS);

    /**
     * \brief Read text already open (an embedded default file, a test's string); `path` names
     *  it in messages. The stream must outlive the reader.
     */
    InputTextReader(std::istream& in, std::string path, Comments comments = NO_COMMENTS);

    /** \brief Read the next line with a token (blank and comment lines are skipped); false at
     *  the end of the file. Tokens() and Line() are then that line's. */
    bool NextLine();

    /** \brief The tokens of the current line (those not taken by NextToken yet included). */
    const std::vector<std::string>& Tokens() const { return m_tokens; }

    /** \brief The next token of the file, on this line or a later one (formats read as a
     *  stream of tokens, as HPCC's `>>`).
     *  \throws InputError at the last line, key `key`: "the file ends; expected `what`" */
    std::string NextToken(const std::string& key, const std::string& what);

    /** \brief An unsigned decimal integer token (at most 19 digits), as NextToken.
     *  \throws InputError "expected `what`; got <the token>" */
    uint64_t NextUnsigned(const std::string& key, const std::string& what);

    /**
     * \brief Read the next line with a token (as NextLine) and require exactly `fields`
     *  tokens on it, for formats of one record per line: NextToken then reads that line's.
     * \throws InputError key `key`: "the file ends; expected `what`" at the end of the file,
     *  or "expected `what`: N fields; got M" naming the line (a record missing a field is not
     *  completed from the next line, nor an extra field ignored).
     */
    void NextRecord(const std::string& key, size_t fields, const std::string& what);

    /** \brief Ignore the rest of the current line: NextToken continues on the next one. */
    void EndLine() { m_pos = m_tokens.size(); }

    /** \brief The number of the current line, from 1 (0 before the first). */
    unsigned Line() const { return m_line; }

    const std::string& Path() const { return m_path; }

    /** \brief Fail at the current line. */
    [[noreturn]] void Fail(const std::string& key, const std::string& message) const;

    /** \brief Fail at `line`. */
    [[noreturn]] void FailAt(unsigned line, const std::string& key, const std::string& message) const;

  private:
    /** Read one raw line into m_tokens (blank or comment: empty); false at the end. */
    bool ReadRawLine();

    std::string m_path;
    std::ifstream m_file; //!< the file, when the reader opened it
    std::istream* m_in;   //!< what is read: m_file or the caller's stream
    Comments m_comments;
    std::vector<std::string> m_tokens;
    size_t m_pos = 0;
    unsigned m_line = 0;
};

} // namespace ns3

#endif // TUSK_INPUT_TEXT_READER_H
