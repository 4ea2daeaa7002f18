-- An OCP E5M2 -> FP32 decoder written by hand for fpforge's tests (not generated): every code to its exact
-- FP32 value; NaNs become the quiet NaN 0x7fc00000 with the code's sign, as fpforge's golden model does.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

entity e5m2_to_fp32 is
  generic (W : natural := 8);
  port (
    code  : in  std_logic_vector(W - 1 downto 0);
    value : out std_logic_vector(31 downto 0)
  );
end entity;

architecture rtl of e5m2_to_fp32 is
  constant Z21 : std_logic_vector(20 downto 0) := (others => '0');
  constant Z22 : std_logic_vector(21 downto 0) := (others => '0');
  constant Z23 : std_logic_vector(22 downto 0) := (others => '0');
begin
  decode : process (code)
    variable s : std_logic;
    variable e : unsigned(4 downto 0);
    variable m : std_logic_vector(1 downto 0);
    variable v : std_logic_vector(31 downto 0);
  begin
    s := code(7);
    e := unsigned(code(6 downto 2));
    m := code(1 downto 0);
    if e = 31 then
      if m = "00" then
        v := s & x"ff" & Z23;                        -- infinity
      else
        v := s & x"ff" & '1' & Z22;                  -- quiet NaN
      end if;
    elsif e = 0 then
      case m is
        when "00" => v := s & x"00" & Z23;           -- zero
        when "01" => v := s & std_logic_vector(to_unsigned(111, 8)) & Z23;        -- 2^-16
        when "10" => v := s & std_logic_vector(to_unsigned(112, 8)) & Z23;        -- 2^-15
        when others => v := s & std_logic_vector(to_unsigned(112, 8)) & '1' & Z22;  -- 1.5 * 2^-15
      end case;
    else
      v := s & std_logic_vector(resize(e, 8) + 112) & m & Z21;
    end if;
    value <= v;
  end process;
end architecture;
